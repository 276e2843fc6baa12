package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// A copy from the live object (new first, as generate writes it) matched by the kind alone puts
// back a scalar Git removed from a manifest that declared it, or the values under a map Git
// removed above the copy's path (issue 23). The mutation check removes them and asks kapp's rebase; the server's own defaulting
// decides whether the removal is a change: image-pull-policy's explicit container declares
// imagePullPolicy: IfNotPresent with an image :latest (removed, the server defaults Always), and
// package-app's shop-api declares resources.limits.memory (resources removed, the server makes
// no limits). A declared dnsPolicy: ClusterFirst, the server's default, removed changes nothing:
// not hidden, nor spec.template.spec above it. Old code: no scalar and no map above a copy's path
// was removed, and check passed.
func TestKindWideCopyRestoringARemovedScalarIsHidden(t *testing.T) {
	for _, c := range []struct {
		scenario, path, want string
		declare              func(*unstructured.Unstructured) // the manifest's edit, nil: as captured
	}{
		{"image-pull-policy", "[spec, template, spec, containers, {allIndexes: true}, imagePullPolicy]",
			"images spec.template.spec.containers[name=explicit].imagePullPolicy", nil},
		{"package-app", "[spec, template, spec, containers, {allIndexes: true}, resources, limits, memory]",
			"shop-api spec.template.spec.containers[name=api].resources", nil},
		{"image-pull-policy", "[spec, template, spec, dnsPolicy]", "", func(u *unstructured.Unstructured) {
			if err := unstructured.SetNestedField(u.Object, "ClusterFirst", "spec", "template", "spec", "dnsPolicy"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.scenario+" "+c.path, func(t *testing.T) {
			rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - `+c.path+`
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
			in := fixture(c.scenario)
			if c.declare != nil {
				in = fixtureEdited(t, c.scenario, "Deployment", c.declare)
			}
			ch, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			got := removalsHidden(ch)
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("a removal the server's defaults give back is reported hidden: %v", got)
			case c.want != "" && !strings.Contains(strings.Join(got, "\n"), c.want):
				t.Errorf("check does not find the removal of %s hidden; removals hidden: %v", c.want, got)
			}
		})
	}
}

// The rules generate writes on image-pull-policy never put back the imagePullPolicy the
// explicit container declares once Git removes it: its copy of the other containers' defaulted
// policies selects them by key (old code: a copy of containers[*].imagePullPolicy for every
// Deployment, which kapp's own rebase made IfNotPresent where the server would default Always).
func TestGeneratedRulesDoNotPutBackARemovedScalar(t *testing.T) {
	in := fixture("image-pull-policy")
	rules, g := generatedRules(t, in)
	if v := g.Verification; !v.OK() || v.KeptPairs != v.GhostPairs {
		t.Fatalf("verification failed: %s; hidden %v", v.Summary(), v.Hidden)
	}
	desired := namedObject(t, objectsOf(t, in.Desired[0]), "images")
	live := namedObject(t, objectsOf(t, in.Live[0]), "images")
	desired.SetNamespace(in.Namespace)
	containers, _, _ := unstructured.NestedSlice(desired.Object, "spec", "template", "spec", "containers")
	explicit := -1
	for i, c := range containers {
		if c.(map[string]any)["name"] == "explicit" {
			explicit = i
			delete(c.(map[string]any), "imagePullPolicy")
		}
	}
	if explicit < 0 {
		t.Fatal("no container explicit in image-pull-policy's manifest")
	}
	if err := unstructured.SetNestedSlice(desired.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		t.Fatal(err)
	}
	got := rebasedWith(t, rules, desired, live)
	containers, _, _ = unstructured.NestedSlice(got.Object, "spec", "template", "spec", "containers")
	if v, ok := containers[explicit].(map[string]any)["imagePullPolicy"]; ok {
		t.Errorf("kapp applies imagePullPolicy %v on the explicit container, whose line Git removed", v)
	}
}
