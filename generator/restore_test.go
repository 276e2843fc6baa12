package generator_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
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

// The design of issue 23's rules: a copy by index stays a plain copy (kapp evaluates no ytt for
// it) wherever it cannot put back a map or list Git removed, and only where it could does a
// resource take the ytt rule selecting items by key. package-app needs no ytt for its
// Deployments: shop-api's api container declares its resources, so the copy of
// containers[*].resources (shop-worker's defaulted {}) names shop-worker and no rule copying
// resources matches shop-api (main: it was in the kind's rule, which put shop-api's back once Git
// removed them; the first fix gave shop-api a ytt rule of its own). crd-defaults needs it:
// Backup nightly's first target lacks the tls the server defaulted, its second declares its own,
// so a copy of targets[*].tls by index on nightly would put the second's back. Both verify with
// kapp's engine, nothing hidden (TestGeneratedRulesDoNotPutBackARemovedMap removes each map).
func TestACopyByIndexStaysPlainUnlessItCouldPutARemovalBack(t *testing.T) {
	for _, c := range []struct {
		scenario, kind, through, leaf string // the kind's rules written through list items at the declared map
		plainNames, yttNames          string // who each sort of rule names for them ("" none)
		noYTT                         bool   // no ytt rule at all for the kind
	}{
		{"package-app", "Deployment", "spec.template.spec.containers[", "].resources", "shop-worker", "", true},
		{"crd-defaults", "Backup", "spec.targets[", "].tls", "", "nightly", false},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			g, err := generator.Generate(fixture(c.scenario), synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v := g.Verification; !v.OK() || v.KeptPairs != v.GhostPairs {
				t.Fatalf("verification failed: %s; hidden %v", v.Summary(), v.Hidden)
			}
			var plain, ytt []string
			for _, rule := range g.Rules {
				for _, r := range rule.Parts() {
					var names, kinds []string
					for _, m := range r.Matchers {
						m.Walk(func(m synth.Matcher) {
							if m.KindNamespaceName != nil {
								names = append(names, m.KindNamespaceName.Name)
							}
							if m.APIVersionKind != nil {
								kinds = append(kinds, m.APIVersionKind.Kind)
							}
						})
					}
					if !slices.ContainsFunc(r.Resources, func(id pair.Identity) bool { return id.Kind == c.kind }) {
						continue
					}
					if r.YTT() && c.noYTT {
						t.Errorf("a ytt rule for a %s: %s", c.kind, describeRule(r))
					}
					writes := func(ps []fielddiff.Path) bool {
						return slices.ContainsFunc(ps, func(p fielddiff.Path) bool {
							s := p.String()
							return strings.HasPrefix(s, c.through) && strings.HasSuffix(s, c.leaf)
						})
					}
					switch {
					case writes(r.Indexed) && len(kinds) > 0 && len(names) == 0:
						t.Errorf("a copy by index of the declared map matches the kind: %s", describeRule(r))
					case writes(r.Indexed):
						plain = append(plain, strings.Join(names, ","))
					case writes(append(r.Keyed, r.Empty...)):
						ytt = append(ytt, strings.Join(names, ","))
						if !strings.Contains(r.ByKey, "declares") {
							t.Errorf("the ytt rule does not say why: %q", r.ByKey)
						}
					}
				}
			}
			if strings.Join(plain, " ") != c.plainNames || strings.Join(ytt, " ") != c.yttNames {
				t.Errorf("the declared map is copied by index for %q (want %q), selected by key for %q (want %q)", plain, c.plainNames, ytt, c.yttNames)
			}
		})
	}
}

// describeRule is a rule's paths and matchers, for a test's message.
func describeRule(r synth.Rule) string {
	return fmt.Sprintf("paths %v indexed %v keyed %v empty %v matchers %+v", r.Paths, r.Indexed, r.Keyed, r.Empty, r.Matchers)
}
