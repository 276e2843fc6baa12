package verdict

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
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
		rules, _ := configRules(t, cfg.String())
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
			paths = append(paths, envValue(i))
		}
		r := classify.Resource{Pair: pair.Pair{ID: pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "web"}, Desired: testDoc(t, desired), Live: testDoc(t, live)}}
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

// TestBlameHoldsOneTraceAtATime (issue 28): blame keeps kapp's rebase trace (a copy of the
// object per rebase mod kapp applied) of the resource it is asked about only, not of every
// resource asked about before: kept for all, the traces of the fleet corpus's 1,000 pairs were
// most of generate's peak heap (156 MB against a 125 MB bar). Counted in retained bytes, not
// timed: after asking about N resources whose value a rule of 8 paths rewrites, blame may hold
// per resource its desired and live objects decoded and their indexes, less than 5 copies of
// the object (the oracle: the bytes N deep copies of the object hold, measured alike), where the
// traces held 9 more (the prepared manifest and one per applied mod).
func TestBlameHoldsOneTraceAtATime(t *testing.T) {
	const n, paths = 20, 8
	var cfg strings.Builder
	cfg.WriteString("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing]\n  paths:\n")
	for i := range paths {
		fmt.Fprintf(&cfg, "  - [spec, template, spec, containers, {index: 0}, env, {index: %d}, value]\n", i)
	}
	cfg.WriteString("  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n")
	rules, config := configRules(t, cfg.String())
	obj := func(name, value string) map[string]any {
		var env []any
		for i := range 50 {
			env = append(env, map[string]any{"name": fmt.Sprintf("V%05d", i), "value": fmt.Sprintf("%s-%d", value, i)})
		}
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "web", "image": "nginx", "env": env}}}}}}
	}
	var rs []classify.Resource
	for i := range n {
		name := fmt.Sprintf("web%d", i)
		rs = append(rs, classify.Resource{Pair: pair.Pair{ID: pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: name},
			Desired: testDoc(t, obj(name, "git")), Live: testDoc(t, obj(name, "cluster"))}})
	}
	p := envValue(0)
	retained := func(hold func() any) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		held := hold()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(held)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	}
	blamed := retained(func() any {
		b := &blame{rules: rules, configs: []load.Object{config}, of: map[string]*blamed{}}
		for _, r := range rs {
			x := b.resource(r)
			if !x.rewrote(0, p) { // kapp's trace shows the rule copying the live value
				t.Fatalf("%s: the rule's rewrite of %s not traced", r.ID, p)
			}
			if names, _ := x.responsible(p, nil); !strings.Contains(names, "index: 0}, value]") {
				t.Fatalf("%s: blamed on %q", r.ID, names)
			}
		}
		return b
	})
	copies := retained(func() any {
		var out []map[string]any
		for i := range n {
			out = append(out, k8sruntime.DeepCopyJSON(obj(fmt.Sprintf("web%d", i), "git")))
		}
		return out
	})
	t.Logf("blame holds %d bytes for %d resources; %d copies of the object hold %d", blamed, n, n, copies)
	if blamed > 5*copies {
		t.Errorf("blame holds %d bytes after asking about %d resources: %.1f copies of the object each, want fewer than 5 (the traces of resources no longer asked about are dropped)",
			blamed, n, float64(blamed)/float64(copies))
	}
}

// configRules is the rules of the kapp Config in yaml, and the Config as load reads it.
func configRules(t *testing.T, yaml string) ([]Rule, load.Object) {
	t.Helper()
	res, err := ctlres.NewResourceFromBytes([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ctlconf.NewConfigFromResource(res)
	if err != nil {
		t.Fatal(err)
	}
	return rulesOf(c, func(string, int, ...any) RuleAt { return RuleAt{} }), load.Object{Unstructured: &unstructured.Unstructured{Object: res.UnstructuredObject()}}
}

func testDoc(t *testing.T, obj map[string]any) load.Doc {
	t.Helper()
	d, err := load.NewDoc(load.Object{Unstructured: &unstructured.Unstructured{Object: obj}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// envValue is the path of the value of the first container's env item i.
func envValue(i int) fielddiff.Path {
	zero := 0
	p := append(fielddiff.FromFields([]string{"spec", "template", "spec", "containers"}), fieldpath.PathElement{Index: &zero})
	p = append(append(p, fielddiff.FromFields([]string{"env"})...), fieldpath.PathElement{Index: &i})
	return append(p, fielddiff.FromFields([]string{"value"})...)
}
