package generator_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// legacyRC declares no spec.selector: the API server defaults it from the template's labels
// (k8s.io/kubernetes v1.37.2 pkg/apis/core/v1 defaults.go SetDefaults_ReplicationController).
const legacyRC = `apiVersion: v1
kind: ReplicationController
metadata:
  name: legacy
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: legacy}
    spec:
      containers:
      - name: legacy
        image: nginx:1.25
`

// rcSelectorCopy is a hand-written rule keeping every ReplicationController's live selector.
const rcSelectorCopy = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [spec, selector]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: ReplicationController}
`

// rcApplied is the ReplicationController kapp's deploy of in under rules updates, as kapp's own
// engine makes it (against the last-applied copy and the live object, which agree on it), with
// the API server's verdict on that update (Kubernetes' defaulting and update validation) and on
// the update sending the manifest under no rules.
func rcApplied(t *testing.T, in generator.Inputs, rules []string) (applied map[string]any, refused, manifestRefused error) {
	t.Helper()
	bs, err := os.ReadFile(in.Live[0])
	if err != nil {
		t.Fatal(err)
	}
	var live map[string]any
	if err := yaml.Unmarshal([]byte(strings.TrimPrefix(string(bs), "---\n")), &live); err != nil {
		t.Fatal(err)
	}
	unruled := func() map[string]any {
		for _, ch := range kapptest.Changes(t, in.Desired, in.Live[0], in.Namespace, nil, true) {
			if ch.Op() == ctldiff.ChangeOpUpdate {
				return ch.NewResource().UnstructuredObject()
			}
		}
		t.Fatal("kapp does not update the ReplicationController without rules")
		return nil
	}()
	for _, against := range []bool{true, false} {
		for _, ch := range kapptest.Changes(t, in.Desired, in.Live[0], in.Namespace, rules, against) {
			if ch.Op() != ctldiff.ChangeOpUpdate {
				continue
			}
			obj := ch.NewResource().UnstructuredObject()
			if applied != nil && !equalAt(applied, obj, "spec", "selector") {
				t.Fatalf("kapp applies selector %v against the last-applied copy, %v against the live object", sel(applied), sel(obj))
			}
			applied = obj
		}
	}
	if applied == nil {
		t.Fatal("kapp does not update the ReplicationController")
	}
	return applied, kapptest.ReplicationControllerUpdateRefused(t, applied, live), kapptest.ReplicationControllerUpdateRefused(t, unruled, live)
}

func sel(obj map[string]any) any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, "spec", "selector")
	return v
}

func equalAt(a, b map[string]any, path ...string) bool {
	x, _, _ := unstructured.NestedFieldNoCopy(a, path...)
	y, _, _ := unstructured.NestedFieldNoCopy(b, path...)
	ax, _ := yaml.Marshal(x)
	by, _ := yaml.Marshal(y)
	return string(ax) == string(by)
}

// A pull request changing the template labels of a ReplicationController that declares no
// selector, under a rule copying the live selector: kapp sends the old selector beside the new
// labels, which the API server refuses (selector does not match template labels), while the
// manifest alone is accepted (the server defaults the selector from the new labels). check blamed
// the manifest ("change the manifest so that the update is valid", newcomer14 N14-1); the refusal
// is the rules' doing, and check says so and to regenerate them. The oracles are kapp's own engine
// (the object it applies) and Kubernetes' defaulting and update validation of it.
func TestRefusalTheRulesCauseIsNamed(t *testing.T) {
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", legacyRC))
	pr := generator.Inputs{Desired: []string{writeFile(t, "pr.yaml", strings.Replace(legacyRC, "{app: legacy}", "{app: legacy2}", 1))}, Live: []string{live}, Namespace: "shop"}
	rules := writeFile(t, "rc-selector.yml", rcSelectorCopy)
	_, refused, manifestRefused := rcApplied(t, pr, []string{rules})
	if refused == nil || !strings.Contains(refused.Error(), "`selector` does not match template `labels`") || manifestRefused != nil {
		t.Fatalf("the API server's verdicts are not what the test expects: under the rule %v, without %v", refused, manifestRefused)
	}
	c, err := generator.Check(pr, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	refusals := 0
	for _, f := range c.Findings(verdict.Gate{}) {
		if strings.Contains(f.Evidence, "change the manifest") {
			t.Errorf("%s %s %s: the rules' refusal is blamed on the manifest: %s", f.Kind, f.Resource.Name, f.Path, f.Evidence)
		}
		if f.Kind != verdict.KindImmutable {
			continue
		}
		refusals++
		if !f.Fails || !strings.Contains(f.Evidence, "the rebase rules cause it: they write spec.selector") || !strings.Contains(f.Evidence, "regenerate the rules") {
			t.Errorf("%s %s %s: the refusal is not put down to the rules (fails %v): %s", f.Kind, f.Resource.Name, f.Path, f.Fails, f.Evidence)
		}
	}
	if refusals == 0 {
		t.Error("check does not report the update the API server refuses")
	}
}

// The rules generated for a ReplicationController declaring no selector copy the live one, which
// the API server defaulted from the template's labels. A pull request changing those labels has
// kapp send the old selector beside them: check fails the gate naming the rule as hiding the
// server's new default and the refusal as the rules' doing, with regenerate as the remedy, not a
// change of the manifest (newcomer14 N14-5); the rules regenerated from the pull request have
// kapp send an object the API server accepts, and check passes them. The oracles are kapp's own
// engine and Kubernetes' defaulting and update validation of what it sends.
func TestRCSelectorRulesFollowTheTemplateLabels(t *testing.T) {
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", legacyRC))
	rules, _ := generatedRules(t, generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", legacyRC)}, Live: []string{live}, Namespace: "shop"})
	pr := generator.Inputs{Desired: []string{writeFile(t, "pr.yaml", strings.Replace(legacyRC, "{app: legacy}", "{app: legacy2}", 1))}, Live: []string{live}, Namespace: "shop"}
	_, refused, manifestRefused := rcApplied(t, pr, []string{rules})
	if manifestRefused != nil {
		t.Fatalf("the API server refuses the manifest without rules: %v", manifestRefused)
	}
	c, err := generator.Check(pr, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range c.Findings(verdict.Gate{}) {
		if !f.Fails {
			continue
		}
		failed = append(failed, string(f.Kind)+" "+f.Path)
		if strings.Contains(f.Evidence, "change the manifest") {
			t.Errorf("%s %s: the rules' refusal is blamed on the manifest: %s", f.Kind, f.Path, f.Evidence)
		}
		if f.Kind == verdict.KindImmutable && !strings.Contains(f.Evidence, "the rebase rules cause it: they write spec.selector") {
			t.Errorf("%s %s: the refusal is not put down to the rules: %s", f.Kind, f.Path, f.Evidence)
		}
	}
	switch {
	case refused != nil && !slices.Contains(failed, "hidden spec.selector"):
		t.Errorf("kapp sends an update the API server refuses (%v), and check does not name the rule keeping the selector: fails %v", refused, failed)
	case refused == nil && len(failed) > 0:
		t.Errorf("kapp sends an update the API server accepts, and check fails: %v", failed)
	}
	regenerated, _ := generatedRules(t, pr)
	if _, refused, _ := rcApplied(t, pr, []string{regenerated}); refused != nil {
		t.Errorf("the API server refuses what kapp sends under the rules regenerated from the pull request: %v", refused)
	}
	checkedClean(t, pr, regenerated)
}
