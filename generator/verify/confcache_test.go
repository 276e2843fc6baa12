package verify

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// forget empties the cache: the next call builds everything from its configs, as with no reuse.
func (c *confCache) forget() {
	c.mods.reset()
	c.confs.reset()
}

func (c *memo[V]) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// fixtureDocs reads a captured fixture file, one object per YAML document.
func fixtureDocs(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	bs, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(string(bs), "\n---\n") {
		if u := obj(t, doc); len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
	return objs
}

// Reused configs give kapp's verdicts exactly: on the captured hpa-replicas pairs (Deployment
// scaled by its HPA) with a package Config that copies spec.replicas from live, every call after
// the first reuses what kapp made of the configs, and its results equal those of a call that built
// them from nothing. A call with other configs in between (none: the replica diff shows) neither
// reuses the package's nor disturbs it.
func TestReusedConfigsSameVerdicts(t *testing.T) {
	desired := fixtureDocs(t, "../../fixtures/hpa-replicas/desired.yaml")
	live := fixtureDocs(t, "../../fixtures/hpa-replicas/live.yaml")
	if len(desired) != 2 || len(live) != 2 {
		t.Fatalf("fixture: %d desired, %d live objects, want 2 and 2", len(desired), len(live))
	}
	var pairs []Pair
	for i, d := range desired {
		d.SetNamespace(live[i].GetNamespace())
		if d.GetKind() != live[i].GetKind() || d.GetName() != live[i].GetName() {
			t.Fatalf("fixture: desired %s and live %s not in the same order", describe(d), describe(live[i]))
		}
		pairs = append(pairs, Pair{Desired: d, Live: live[i]})
	}
	pkg := fixtureDocs(t, "../../fixtures/lint/hpa-replicas-all-deployments/rules.yml")
	rules := obj(t, `{apiVersion: kapp.k14s.io/v1alpha1, kind: Config, rebaseRules: [{type: copy, sources: [existing], path: [metadata, annotations], resourceMatchers: [{apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}}]}]}`)
	configs := append(pkg, rules)

	verdicts := func(configs []*unstructured.Unstructured) []Result {
		t.Helper()
		res, err := Verify(pairs, configs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res {
			res[i].Time = 0
		}
		return res
	}
	kappConfs.forget()
	fresh := verdicts(configs)
	kappConfs.forget()
	bare := verdicts(nil)
	// The configs decide kapp's verdict: a call that reused the wrong Conf would show.
	if fresh[0].Op[LastApplied] != OpKeep || bare[0].Op[LastApplied] != OpUpdate {
		t.Fatalf("last-applied base, scaled Deployment: %s with the package Config, %s without; want keep, update",
			fresh[0].Op[LastApplied], bare[0].Op[LastApplied])
	}

	for round := range 3 {
		if kappConfs.confs.len() == 0 {
			t.Fatal("nothing cached: the calls below would not reuse anything")
		}
		if got := verdicts(configs); !reflect.DeepEqual(got, fresh) {
			t.Errorf("round %d, reused configs: %+v\nbuilt afresh: %+v", round, got, fresh)
		}
		if got := verdicts(nil); !reflect.DeepEqual(got, bare) {
			t.Errorf("round %d, reused (no configs): %+v\nbuilt afresh: %+v", round, got, bare)
		}
	}
	if kappConfs.confs.len() != 2 {
		t.Errorf("%d Confs cached, want 2 (one per distinct config list)", kappConfs.confs.len())
	}
}
