package generator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
)

// A capture taken after a deploy reset the Deployment's replicas to the manifest's and before
// the package's HPA scaled it again (kapp's update took spec.replicas over: no scale entry in
// managedFields): the autoscaler still writes the field, so the generated rule copying it is
// neither stale nor does it hide a change made in Git (newcomer2 finding 5: "hidden: ... no
// manager other than the manifest's applier owns the field", and the stale diff deleted the rule).
func TestAutoscaledReplicasAtTheManifestsValueKeepTheirRule(t *testing.T) {
	rules := rulesFile(t, emit.FormatConfig, same)
	in := hpaInputs
	in.Live = []string{editedFixture(t, in.Live[0], func(u *unstructured.Unstructured) bool {
		if u.GetKind() != "Deployment" {
			return true
		}
		if err := unstructured.SetNestedField(u.Object, int64(1), "spec", "replicas"); err != nil { // the manifest's
			t.Fatal(err)
		}
		var kept []any
		for _, e := range u.Object["metadata"].(map[string]any)["managedFields"].([]any) {
			if e.(map[string]any)["subresource"] != "scale" {
				kept = append(kept, e)
			}
		}
		u.Object["metadata"].(map[string]any)["managedFields"] = kept
		return true
	})}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hidden)+len(c.Stale)+len(c.Residual) != 0 {
		t.Errorf("want the replicas rule kept, neither hidden nor stale: hidden %v, stale %v, residual %v", c.Hidden, c.Stale, c.Residual)
	}
	masked := false
	for _, h := range c.Masked {
		masked = masked || h.Resource.Kind == "Deployment" && h.Path == "spec.replicas"
	}
	if !masked {
		t.Errorf("spec.replicas not handed to the autoscaler: masked %v", c.Masked)
	}
}
