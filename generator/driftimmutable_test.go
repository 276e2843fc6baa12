package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A difference in an immutable field that nothing tells from a change made on the cluster (an
// object kapp takes over, without kapp.k14s.io/original, created with another selector) was
// drift: a warning, check exit 0. kapp's deploy sends the manifest's selector all the same, and
// the API server refuses the update (apps/v1 Deployment spec.selector is immutable:
// k8s.io/kubernetes pkg/apis/apps/validation ValidateDeploymentUpdate), so the drift fails the
// gate whatever --fail-on-drift says, its evidence saying why.
func TestDriftInAnImmutableFieldFailsTheGate(t *testing.T) {
	in := fixture("hpa-replicas")
	in.Live = []string{editedFixture(t, in.Live[0], func(l *unstructured.Unstructured) bool {
		if l.GetKind() == "Deployment" {
			ann := l.GetAnnotations()
			delete(ann, "kapp.k14s.io/original")
			delete(ann, "kapp.k14s.io/original-diff-md5")
			l.SetAnnotations(ann)
			for _, p := range [][]string{{"spec", "selector", "matchLabels"}, {"spec", "template", "metadata", "labels"}} {
				if err := unstructured.SetNestedField(l.Object, "web-v1", append(p, "app.kubernetes.io/name")...); err != nil {
					t.Fatal(err)
				}
			}
		}
		return true
	})}
	ch, err := generator.Check(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	const sel = `spec.selector.matchLabels["app.kubernetes.io/name"]`
	found := false
	for _, f := range ch.Findings(verdict.Gate{}) {
		if f.Path != sel {
			continue
		}
		found = true
		if f.Kind != verdict.KindDrift || !f.Fails || !strings.Contains(f.Evidence, "kapp's deploy fails here: spec.selector is immutable") {
			t.Errorf("%s: %s (fails %v): %s; want a drift refused on update, failing", f.Path, f.Kind, f.Fails, f.Evidence)
		}
	}
	if !found {
		t.Errorf("no finding on %s", sel)
	}
}
