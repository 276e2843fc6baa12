package generator_test

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

const testCABundle = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="

// objectsOf reads the objects of a fixture file.
func objectsOf(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := load.Paths([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return unstructuredOf(objs)
}

// namedObject is the object of objs named name.
func namedObject(t *testing.T, objs []*unstructured.Unstructured, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no object %s", name)
	return nil
}

// writeObjects writes objects to a file named name in a temporary directory.
func writeObjects(t *testing.T, name string, objs ...*unstructured.Unstructured) string {
	t.Helper()
	var out []byte
	for _, o := range objs {
		bs, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, "---\n"...), bs...)
	}
	return writeFile(t, name, string(out))
}

// rebasedWith is desired as kapp's own rebase rules, its built-in ones and those of the rule file
// rules, rebase it on live.
func rebasedWith(t *testing.T, rules string, desired, live *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	configs, err := load.Paths([]string{rules}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := kappcover.New(configs, false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := rb.Rebased(desired, live)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A CRD whose manifest leaves out spec.conversion gets {strategy: None} from the server, and
// generate copies it from the live object. kapp's built-in rule puts back the caBundle a CA
// injector wrote into a CRD whose manifest declares a conversion webhook; a copy of the whole
// conversion map from the manifest first, on every CRD, replaced it with the manifest's, which
// has no caBundle: kapp would take the CA away on every deploy (newcomer4 finding 8). The copy
// acts only while the manifest lacks the map. fixtures/crd-defaults' CRD beside a converting one.
func TestDefaultedConversionCopyKeepsInjectedCABundle(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "crd-defaults")
	const name = "backups.crd-defaults.rebasegen.dev"
	desired := namedObject(t, objectsOf(t, filepath.Join(dir, "desired.yaml")), name)
	live := namedObject(t, objectsOf(t, filepath.Join(dir, "live.yaml")), name)
	// the converting CRD: another name, the same schema, a conversion webhook the CA injector
	// serves (its caBundle and the defaulted service port in the live object only)
	converting := func(o *unstructured.Unstructured, isLive bool) *unstructured.Unstructured {
		c := o.DeepCopy()
		c.SetName("widgets.crd-defaults.rebasegen.dev")
		c.SetUID("25031e38-63a9-48e0-b123-2e088d4068c7")
		spec := c.Object["spec"].(map[string]any)
		spec["names"] = map[string]any{"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"}
		svc := map[string]any{"name": "conv", "namespace": "crd-defaults", "path": "/convert"}
		cc := map[string]any{"service": svc}
		ann := c.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann["cert-manager.io/inject-ca-from"] = "crd-defaults/conv-cert"
		if isLive {
			svc["port"] = int64(443)
			cc["caBundle"] = testCABundle
			delete(ann, "kapp.k14s.io/original")
			delete(ann, "kapp.k14s.io/original-diff-md5")
			ann["kapp.k14s.io/identity"] = "v1;/apiextensions.k8s.io/CustomResourceDefinition/widgets.crd-defaults.rebasegen.dev;apiextensions.k8s.io/v1"
			labels := c.GetLabels()
			labels["kapp.k14s.io/association"] = "v1.11df12232831fed701322437044fe68c"
			c.SetLabels(labels)
			c.SetManagedFields(nil)
		}
		c.SetAnnotations(ann)
		spec["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{"clientConfig": cc, "conversionReviewVersions": []any{"v1"}}}
		return c
	}
	convDesired, convLive := converting(desired, false), converting(live, true)
	in := generator.Inputs{Desired: []string{writeObjects(t, "desired.yaml", desired, convDesired)},
		Live: []string{writeObjects(t, "live.yaml", live, convLive)}, Namespace: "crd-defaults"}
	rules, g := generatedRules(t, in)
	if g.Verification.KeptPairs != 2 {
		t.Errorf("kapp keeps %d of the 2 CRDs under the generated rules", g.Verification.KeptPairs)
	}
	// kapp's own rebase: the converting CRD keeps its CA, the other gets its default conversion
	got := rebasedWith(t, rules, convDesired, convLive)
	if v, _, _ := unstructured.NestedString(got.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle"); v != testCABundle {
		t.Errorf("kapp applies the converting CRD with caBundle %q, want the injected one", v)
	}
	other := rebasedWith(t, rules, desired, live)
	if v, _, _ := unstructured.NestedString(other.Object, "spec", "conversion", "strategy"); v != "None" {
		t.Errorf("kapp applies the CRD without conversion with strategy %q, want the server's None", v)
	}
}

// Where Git switches a webhook from a service to a url, a copy of the defaulted
// clientConfig.service.port from the live object, generated while every webhook called a service,
// made service again beside the url: the API server refuses the object, and every kapp deploy
// fails (newcomer4 finding 9). The copy is generated for a configuration of two webhooks
// (fixtures/webhooks-cabundle's, the second a copy of the first), then the second switched to a
// url: kapp's rebase with the generated rules must give it one handler.
func TestGeneratedCopyDoesNotGiveASwitchedWebhookTwoHandlers(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "webhooks-cabundle")
	const name = "rebasegen-webhooks-cabundle"
	var desired, live *unstructured.Unstructured
	for _, o := range objectsOf(t, filepath.Join(dir, "desired.yaml")) {
		if o.GetKind() == "ValidatingWebhookConfiguration" {
			desired = o
		}
	}
	for _, o := range objectsOf(t, filepath.Join(dir, "live.yaml")) {
		if o.GetKind() == "ValidatingWebhookConfiguration" && o.GetName() == name {
			live = o
		}
	}
	if desired == nil || live == nil {
		t.Fatal("no ValidatingWebhookConfiguration in the fixture")
	}
	second := func(o *unstructured.Unstructured) {
		ws := o.Object["webhooks"].([]any)
		w := runtime.DeepCopyJSONValue(ws[0]).(map[string]any)
		w["name"] = "second.webhooks-cabundle.rebasegen.dev"
		w["clientConfig"].(map[string]any)["service"].(map[string]any)["path"] = "/second"
		o.Object["webhooks"] = append(ws, w)
	}
	second(desired)
	second(live)
	in := generator.Inputs{Desired: []string{writeObjects(t, "desired.yaml", desired)}, Live: []string{writeObjects(t, "live.yaml", live)}, Namespace: "webhooks-cabundle"}
	rules, g := generatedRules(t, in)
	if g.Verification.KeptPairs != 1 {
		t.Errorf("kapp keeps %d of 1 pair under the generated rules", g.Verification.KeptPairs)
	}
	bs, err := yaml.Marshal(g.Rules)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(bs), "port") {
		t.Fatalf("the generated rules no longer copy clientConfig.service.port; the test needs another field")
	}
	switched := desired.DeepCopy()
	ws := switched.Object["webhooks"].([]any)
	ws[1].(map[string]any)["clientConfig"] = map[string]any{"url": "https://second.example.com/validate"}
	got := rebasedWith(t, rules, switched, live)
	cc, _, _ := unstructured.NestedMap(got.Object["webhooks"].([]any)[1].(map[string]any), "clientConfig")
	if _, hasService := cc["service"]; hasService {
		t.Errorf("kapp applies the switched webhook with service beside url: %v", cc)
	}
	if cc["url"] != "https://second.example.com/validate" {
		t.Errorf("kapp applies the switched webhook without its url: %v", cc)
	}
}

// A hand-written copy of clientConfig.service.port from the live object, for every webhook: once
// Git switches the webhook to a url, kapp applies service beside it, which the API server
// refuses. check says the change is hidden, and why: both handlers in one clientConfig.
func TestCheckSaysASwitchedHandlerGetsBoth(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "webhooks-cabundle")
	const name = "rebasegen-webhooks-cabundle"
	switched := func(isLive bool) func(*unstructured.Unstructured) bool {
		return func(o *unstructured.Unstructured) bool {
			if o.GetKind() != "ValidatingWebhookConfiguration" || o.GetName() != name {
				return false
			}
			if !isLive {
				ws := o.Object["webhooks"].([]any)
				ws[0].(map[string]any)["clientConfig"] = map[string]any{"url": "https://webhook.example.com/validate"}
			}
			return true
		}
	}
	in := generator.Inputs{Desired: []string{editedFixture(t, filepath.Join(dir, "desired.yaml"), switched(false))},
		Live: []string{editedFixture(t, filepath.Join(dir, "live.yaml"), switched(true))}, Namespace: "webhooks-cabundle"}
	rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [webhooks, {allIndexes: true}, clientConfig, service, port]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration}
`)
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range c.Hidden {
		if strings.HasSuffix(h.Path, "clientConfig.service") {
			found = true
			if !strings.Contains(h.How, "service beside url") || !strings.Contains(h.How, "refuses") {
				t.Errorf("check does not say the object kapp applies holds both handlers: %q", h.How)
			}
		}
	}
	if !found {
		t.Errorf("check does not call the switch hidden: %+v", c.Findings(verdict.Gate{}))
	}
}
