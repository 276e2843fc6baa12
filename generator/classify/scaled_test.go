package classify

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
