package verdict

import (
	"fmt"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// TestBlameLinearInRules (probe16 P16-5): naming the rule that hides each of N values, with N
// rules each copying one of them, is linear in N: each answer looked p's keys up again for every
// rule, N×N key builds (N=200: 4.7 s of check's 11.8 s). Counted in allocations, not timed:
// doubling N must not double them twice over (a ratio of 4 on the old code).
func TestBlameLinearInRules(t *testing.T) {
	allocs := func(n int) float64 {
		var cfg strings.Builder
		cfg.WriteString("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n")
		for i := range n {
			fmt.Fprintf(&cfg, "- type: copy\n  sources: [existing]\n  paths:\n  - [spec, template, spec, containers, {index: 0}, env, {index: %d}, value]\n"+
				"  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n", i)
		}
		res, err := ctlres.NewResourceFromBytes([]byte(cfg.String()))
		if err != nil {
			t.Fatal(err)
		}
		c, err := ctlconf.NewConfigFromResource(res)
		if err != nil {
			t.Fatal(err)
		}
		rules := rulesOf(c, func(string, int) RuleAt { return RuleAt{} })
		var items []any
		for i := range n {
			items = append(items, map[string]any{"name": fmt.Sprintf("V%05d", i), "value": fmt.Sprintf("v%d", i)})
		}
		obj := func() map[string]any {
			return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "ns"},
				"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
					map[string]any{"name": "web", "image": "nginx", "env": append([]any(nil), items...)}}}}}}
		}
		desired, live := obj(), obj()
		var paths []fielddiff.Path
		for i := range n {
			zero, i := 0, i
			p := append(fielddiff.FromFields([]string{"spec", "template", "spec", "containers"}), fieldpath.PathElement{Index: &zero})
			p = append(append(p, fielddiff.FromFields([]string{"env"})...), fieldpath.PathElement{Index: &i})
			paths = append(paths, append(p, fielddiff.FromFields([]string{"value"})...))
		}
		doc := func(obj map[string]any) load.Doc {
			d, err := load.NewDoc(load.Object{Unstructured: &unstructured.Unstructured{Object: obj}})
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		r := classify.Resource{Pair: pair.Pair{ID: pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "web"}, Desired: doc(desired), Live: doc(live)}}
		return testing.AllocsPerRun(1, func() {
			b := &blame{rules: rules, of: map[string]*blamed{}, failed: true} // no kapp trace: every rule's paths are asked about
			for i, p := range paths {
				if names, _ := b.responsible(r, p); !strings.Contains(names, fmt.Sprintf("index: %d}, value]", i)) || strings.Count(names, ";") != 0 {
					t.Fatalf("%s: blamed on %s", p, names)
				}
			}
		})
	}
	small, large := allocs(100), allocs(200)
	t.Logf("allocations: %.0f for 100 rules and values, %.0f for 200", small, large)
	if ratio := large / small; ratio > 3 {
		t.Errorf("allocations %.0f for 100 rules and values, %.0f for 200: x%.1f, want linear (about x2)", small, large, ratio)
	}
}
