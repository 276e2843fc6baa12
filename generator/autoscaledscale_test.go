package generator_test

import (
	"os"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A person's kubectl scale of the Deployment the package's HPA targets (fixtures/hpa-replicas:
// its scaleTargetRef names apps/v1 Deployment web, read by hand), nothing changed in Git (the
// manifest's replicas is kapp.k14s.io/original's): managedFields credit kubectl's Update of the
// scale subresource with spec.replicas. check called it "a change made in Git hidden" by the
// replicas copy and the rules stale, and regenerating dropped the copy: kapp then set replicas
// back to the manifest's on every deploy and the HPA scaled it again, the fight the rule ends
// (newcomer16 N16-6, measured on a real cluster). The person's scale is drift (a warning), the
// field stays the autoscaler's, the rule stays. Oracle: kapp's engine under the regenerated rules.
func TestAPersonsScaleOfAnAutoscaledDeploymentKeepsItsRule(t *testing.T) {
	rules := rulesFile(t, emit.FormatConfig, same)
	in := hpaInputs
	in.Live = []string{editedFixture(t, in.Live[0], func(u *unstructured.Unstructured) bool {
		if u.GetKind() != "Deployment" {
			return true
		}
		if err := unstructured.SetNestedField(u.Object, int64(5), "spec", "replicas"); err != nil {
			t.Fatal(err)
		}
		for _, e := range u.Object["metadata"].(map[string]any)["managedFields"].([]any) {
			if e := e.(map[string]any); e["subresource"] == "scale" {
				e["manager"] = "kubectl" // kubectl scale: its user agent, an Update of the scale subresource
			}
		}
		return true
	})}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hidden)+len(c.Stale)+len(c.Residual) != 0 {
		t.Errorf("want the replicas rule kept, neither hidden nor stale: hidden %v, stale %v, residual %v", c.Hidden, c.Stale, c.Residual)
	}
	drift := false
	for _, f := range c.Findings(verdict.Gate{}) {
		if f.Kind == verdict.KindDrift && f.Path == "spec.replicas" {
			drift = !f.Fails
		}
	}
	if !drift {
		t.Errorf("want the person's scale a drift warning: %v", c.Findings(verdict.Gate{}))
	}
	if !verdict.Failing(c.Findings(verdict.Gate{FailOnDrift: true})) {
		t.Error("want --fail-on-drift to fail on the person's scale")
	}
	regenerated, _ := generatedRules(t, in)
	if text, _ := os.ReadFile(regenerated); !strings.Contains(string(text), "- [spec, replicas]") {
		t.Errorf("the rules generated from this capture lack the replicas copy:\n%s", text)
	}
	for _, ch := range kapptest.Changes(t, in.Desired, in.Live[0], in.Namespace, []string{regenerated}, false) {
		if ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == "Deployment" {
			t.Errorf("oracle: kapp's deploy under the regenerated rules updates the Deployment (sets replicas back, the HPA's fight)")
		}
	}
}
