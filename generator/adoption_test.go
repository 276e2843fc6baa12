package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// Helm's bookkeeping left on objects kapp already deployed (fixtures/hpa-replicas with Helm's
// release annotation and managed-by label added to the live Deployment): adoption findings,
// never ruled, and kapp's engine keeps every pair once kapp's next deploy has dropped them.
func TestAdoptionChangesAreReportedAndTheRestVerified(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "hpa-replicas")
	live, err := load.Paths([]string{filepath.Join(dir, "live.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, l := range live {
		if l.GetKind() == "Deployment" {
			ann := l.GetAnnotations()
			ann["meta.helm.sh/release-name"] = "web"
			l.SetAnnotations(ann)
			labels := l.GetLabels()
			labels["app.kubernetes.io/managed-by"] = "Helm"
			l.SetLabels(labels)
		}
		bs, err := yaml.Marshal(l.Object)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, "---\n"...), bs...)
	}
	f := filepath.Join(t.TempDir(), "live.yaml")
	if err := os.WriteFile(f, out, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := generator.Generate(generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{f}, Namespace: "hpa-replicas"}, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := g.Verification
	if len(v.Adoption) != 2 || !strings.Contains(strings.Join(v.Adoption, "\n"), "meta.helm.sh/release-name") {
		t.Errorf("want Helm's 2 keys as one-time adoption changes, got %v", v.Adoption)
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
