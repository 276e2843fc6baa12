package generator_test

import (
	"path/filepath"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// kapp labels every resource it deploys with the package Config's additionalLabels and its own
// labels (LabeledResources.Prepare), pod templates included, before it diffs: a real capture of
// such a package holds those labels, and kapp reports no change. rebasegen compares the objects
// as kapp prepared them: no label is a change made in Git, and the generated rules keep every
// resource (the old code: the team labels and the Job's template metadata "pending", generate
// "hidden: metadata.labels.team", verification failed, nothing written).
func TestPackageAdditionalLabelsAreKappsNotGits(t *testing.T) {
	dir := filepath.Join("testdata", "additional-labels")
	in := generator.Inputs{Desired: []string{filepath.Join(dir, "app.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "shop"}
	a, err := generator.Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Report.Resources {
		for _, f := range r.Findings {
			if f.Class == classify.Pending {
				t.Errorf("%s %s: pending (%s)", r.ID, f.Path, f.Evidence)
			}
		}
	}
	g, err := a.Generate(synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Verification; !v.OK() || v.KeptPairs != 2 || len(v.Updates) != 0 || len(v.Hidden) != 0 {
		t.Errorf("verification: %s; updates %v; hidden %v", v.Summary(), v.Updates, v.Hidden)
	}
}
