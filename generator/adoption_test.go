package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// Helm's bookkeeping left on objects kapp already deployed (fixtures/hpa-replicas with Helm's
// release annotation and managed-by label added to the live Deployment): adoption findings,
// never ruled, and kapp's engine keeps every pair once kapp's next deploy has dropped them.
func TestAdoptionChangesAreReportedAndTheRestVerified(t *testing.T) {
	in := fixture("hpa-replicas")
	in.Live = []string{editedFixture(t, in.Live[0], func(l *unstructured.Unstructured) bool {
		if l.GetKind() == "Deployment" {
			ann := l.GetAnnotations()
			ann["meta.helm.sh/release-name"] = "web"
			l.SetAnnotations(ann)
			labels := l.GetLabels()
			labels["app.kubernetes.io/managed-by"] = "Helm"
			l.SetLabels(labels)
		}
		return true
	})}
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := g.Verification
	var changed []string
	for _, a := range v.Adoption {
		changed = append(changed, a.Resource.String()+" "+a.Finding.Path.String())
	}
	if len(v.Adoption) != 2 || !strings.Contains(strings.Join(changed, "\n"), "meta.helm.sh/release-name") {
		t.Errorf("want Helm's 2 keys as one-time adoption changes, got %v", changed)
	}
	if !v.OK() || v.KeptPairs != v.GhostPairs || v.GhostPairs != 2 {
		t.Fatalf("want both pairs verified keep after adoption: %s\n%v", v.Summary(), v.Residual)
	}
	for _, r := range g.Rules {
		for _, p := range r.Paths {
			if strings.Contains(strings.Join(p, "."), "helm") || strings.Contains(strings.Join(p, "."), "managed-by") {
				t.Errorf("adoption change ruled: %v", p)
			}
		}
	}
	for _, r := range g.Report.Resources {
		for _, f := range r.Findings {
			if strings.Contains(f.Path.String(), "helm") && f.Class != classify.Adoption {
				t.Errorf("%s: %s", f.Path, f.Class)
			}
		}
	}
}
