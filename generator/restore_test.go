package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// A copy from the live object matched by the kind alone puts back a map Git removed from a
// manifest that declared it (issue 23): a hand-written copy of every Deployment container's
// resources, with shop-api's api container declaring its own. The mutation check removes the
// declared map and asks kapp's rebase: check must call the removal hidden (main: the copy was
// matched by identity alone, so no removal was tried, and check passed).
func TestKindWideCopyRestoringARemovalIsHidden(t *testing.T) {
	rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, resources]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	c, err := generator.Check(fixture("package-app"), []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range c.Hidden {
		if h.Resource.Name == "shop-api" && strings.HasSuffix(h.Path, "containers[name=api].resources") {
			return
		}
	}
	t.Errorf("check does not find the removal of shop-api's declared resources hidden: %+v", c.Hidden)
}

// The rules generate writes never put back a map or list a manifest declares once Git removes
// it: a Pod's spec.resources.limits (the other Pod's defaulted from its requests, copied for
// every Pod), a container's resources (the other Deployment's defaulted {}), a custom
// resource's item's tls (the other item's defaulted from the CRD's schema). Each is removed from
// the manifest, and kapp's own rebase with the generated rules must not hold it (main: all
// three put back from the live object).
func TestGeneratedRulesDoNotPutBackARemovedMap(t *testing.T) {
	for _, c := range []struct {
		scenario, kind, name string
		path                 []any // map keys, list indexes
	}{
		{"create-strategies", "Pod", "pod-limits", []any{"spec", "resources", "limits"}},
		{"package-app", "Deployment", "shop-api", []any{"spec", "template", "spec", "containers", 0, "resources"}},
		{"crd-defaults", "Backup", "nightly", []any{"spec", "targets", 1, "tls"}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			in := fixture(c.scenario)
			rules, g := generatedRules(t, in)
			if g.Verification.KeptPairs != g.Verification.GhostPairs {
				t.Fatalf("kapp keeps %d of %d pairs under the generated rules", g.Verification.KeptPairs, g.Verification.GhostPairs)
			}
			var desired, live *unstructured.Unstructured
			for _, o := range objectsOf(t, in.Desired[0]) {
				if o.GetKind() == c.kind && o.GetName() == c.name {
					desired = o
				}
			}
			for _, o := range objectsOf(t, in.Live[0]) {
				if o.GetKind() == c.kind && o.GetName() == c.name {
					live = o
				}
			}
			if desired == nil || live == nil {
				t.Fatalf("no %s %s in %s", c.kind, c.name, c.scenario)
			}
			if desired.GetNamespace() == "" {
				desired.SetNamespace(in.Namespace)
			}
			if _, ok := at(desired.Object, c.path); !ok {
				t.Fatalf("the manifest declares nothing at %v: the test needs another field", c.path)
			}
			removeAt(desired.Object, c.path)
			got := rebasedWith(t, rules, desired, live)
			if v, ok := at(got.Object, c.path); ok {
				t.Errorf("kapp applies %v = %v, which Git removed", c.path, v)
			}
		})
	}
}

// at is the value at path (map keys, list indexes) of obj.
func at(obj any, path []any) (any, bool) {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := obj.(map[string]any)
			if !ok {
				return nil, false
			}
			if obj, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			l, ok := obj.([]any)
			if !ok || k >= len(l) {
				return nil, false
			}
			obj = l[k]
		}
	}
	return obj, true
}

// removeAt deletes the map entry at path (its last part a map key) from obj.
func removeAt(obj map[string]any, path []any) {
	parent, ok := at(obj, path[:len(path)-1])
	if m, isMap := parent.(map[string]any); ok && isMap {
		delete(m, path[len(path)-1].(string))
	}
}
