package classify

import (
	"fmt"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// Expected targets written from the HPA controller (group of scaleTargetRef.apiVersion + kind)
// and KEDA's documented defaults (apps/v1, Deployment), not from ScaleTarget.
func TestScaleTarget(t *testing.T) {
	obj := func(apiVersion, kind string, spec map[string]any) *unstructured.Unstructured {
		o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "s"}}
		if spec != nil {
			o["spec"] = spec
		}
		return &unstructured.Unstructured{Object: o}
	}
	ref := func(kv ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return map[string]any{"scaleTargetRef": m}
	}
	for _, tc := range []struct {
		name string
		o    *unstructured.Unstructured
		want pair.Identity
		ok   bool
	}{
		{"hpa", obj("autoscaling/v2", "HorizontalPodAutoscaler", ref("apiVersion", "apps/v1", "kind", "StatefulSet", "name", "db")),
			pair.Identity{Group: "apps", Kind: "StatefulSet", Namespace: "ns", Name: "db"}, true},
		{"hpa v1, core group", obj("autoscaling/v1", "HorizontalPodAutoscaler", ref("apiVersion", "v1", "kind", "ReplicationController", "name", "rc")),
			pair.Identity{Kind: "ReplicationController", Namespace: "ns", Name: "rc"}, true},
		{"keda defaults", obj("keda.sh/v1alpha1", "ScaledObject", ref("name", "web")),
			pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "web"}, true},
		{"keda custom target", obj("keda.sh/v1alpha1", "ScaledObject", ref("apiVersion", "argoproj.io/v1alpha1", "kind", "Rollout", "name", "r")),
			pair.Identity{Group: "argoproj.io", Kind: "Rollout", Namespace: "ns", Name: "r"}, true},
		{"no spec", obj("autoscaling/v2", "HorizontalPodAutoscaler", nil), pair.Identity{}, false},
		{"hpa without kind", obj("autoscaling/v2", "HorizontalPodAutoscaler", ref("apiVersion", "apps/v1", "name", "x")), pair.Identity{}, false},
		{"not an autoscaler", obj("apps/v1", "Deployment", ref("name", "web")), pair.Identity{}, false},
		{"a kind named like it in another group", obj("example.com/v1", "ScaledObject", ref("name", "web")), pair.Identity{}, false},
	} {
		got, ok := ScaleTarget(tc.o, "ns")
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: got %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// The autoscalers' targets are read before any pair is classified, from every HPA of the inputs:
// only the scaleTargetRef of each is decoded, so that a live HPA's managedFields and status,
// however large, cost nothing there (they were decoded whole, twice over per pair in a fleet of
// Deployment + HPA pairs). The target found is the one ScaleTarget gives the decoded object.
func TestHPATargetsDecodeOnlyTheTarget(t *testing.T) {
	hpa := func(managers int) load.Doc {
		mf := make([]any, managers)
		for i := range mf {
			mf[i] = map[string]any{"manager": fmt.Sprintf("m%d", i), "operation": "Update", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:status": map[string]any{"f:currentReplicas": map[string]any{}, "f:conditions": map[string]any{}}}}
		}
		d, err := load.NewDoc(load.Object{Unstructured: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
			"metadata": map[string]any{"name": "web", "namespace": "prod", "managedFields": mf},
			"spec":     map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": int64(5)},
			"status":   map[string]any{"currentReplicas": int64(3)},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	set := func(managers int) *pair.Set {
		return &pair.Set{Pairs: []pair.Pair{{Desired: hpa(0), Live: hpa(managers)}}}
	}
	want := map[pair.Identity]string{{Group: "apps", Kind: "Deployment", Namespace: "prod", Name: "web"}: "prod/web"}
	for _, n := range []int{0, 2000} {
		got, err := hpaTargets(set(n))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d managers: got %v, %v; want %v", n, got, err, want)
		}
	}
	small, large := set(0), set(2000)
	allocs := func(s *pair.Set) float64 {
		return testing.AllocsPerRun(20, func() {
			if _, err := hpaTargets(s); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(small), allocs(large); b > a+20 {
		t.Errorf("a live HPA with 2,000 managedFields entries took %.0f allocations to find its target, one with none %.0f: more of it is decoded than its scaleTargetRef", b, a)
	}
}
