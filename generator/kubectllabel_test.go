package generator_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// A pair kapp updates for drift is verified again with the drifted fields set to their live
// values. A drifted annotation of an object whose manifest declares no annotations was set by
// taking the live object's whole annotations map, kapp.k14s.io/identity included, which kapp
// strips from what it lists: kapp then reported the identity annotation as an update, a
// "residual ghost diff" real kapp never shows (newcomer2 finding 4: a person's kubectl label and
// annotate on the HPA).
func TestDriftNeutralisedWithoutKappsIdentityAnnotation(t *testing.T) {
	rules := rulesFile(t, emit.FormatConfig, same)
	bs, err := os.ReadFile(hpaInputs.Live[0])
	if err != nil {
		t.Fatal(err)
	}
	live := string(bs)
	hpa := strings.Index(live, "kind: HorizontalPodAutoscaler")
	at := func(s string) int { return hpa + strings.Index(live[hpa:], s) }
	// kubectl annotate note=by-hand, kubectl label team=web, with their managers
	fields := `  - apiVersion: autoscaling/v2
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          f:note: {}
        f:labels:
          f:team: {}
    manager: kubectl-label
    operation: Update
    time: "2026-11-26T02:00:00Z"
`
	mf := at("  managedFields:\n") + len("  managedFields:\n")
	live = live[:mf] + fields + live[mf:]
	assoc := at("    kapp.k14s.io/association:")
	assoc += strings.Index(live[assoc:], "\n") + 1
	live = live[:assoc] + "    team: web\n" + live[assoc:]
	orig := at("    kapp.k14s.io/original:")
	live = live[:orig] + "    note: by-hand\n" + live[orig:]
	in := hpaInputs
	in.Live = []string{writeFile(t, "live.yaml", live)}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	fs := c.Findings(verdict.Gate{})
	if i := slices.IndexFunc(fs, func(f verdict.Finding) bool { return f.Kind == verdict.KindResidual }); i >= 0 {
		t.Errorf("residual ghost diff: %+v", fs[i])
	}
	if !slices.ContainsFunc(fs, func(f verdict.Finding) bool { return f.Kind == verdict.KindDrift && f.Path == "metadata.labels.team" }) {
		t.Errorf("the label is not reported as drift: %+v", fs)
	}
}

// kapp diffs against its last-applied copy, rebased by the rules, while that copy still holds:
// there the rules take a person's drifted fields from the live object (the Service's
// sessionAffinity and its annotation), and kapp reports no update of the Service, as real kapp
// did on this capture. The pair with the drift neutralised declares the live values, which that
// copy lacks (sessionAffinityConfig): it was called a residual ghost diff under that base
// (newcomer2 finding 4, its real capture with kubectl annotate on the Service).
func TestNoResidualUnderABaseWhereKappKeepsThePair(t *testing.T) {
	dir := filepath.Join("testdata", "kubectl-label-drift")
	in := generator.Inputs{Live: []string{filepath.Join(dir, "live.yaml")},
		Package: yttrender.Package{Dirs: []string{filepath.Join(dir, "config")}, ValuesFiles: []string{filepath.Join(dir, "values.yml")}}}
	c, err := generator.Check(in, []string{filepath.Join(dir, "config", "rebase-rules.yml")})
	if err != nil {
		t.Fatal(err)
	}
	fs := c.Findings(verdict.Gate{})
	for _, f := range fs {
		if f.Kind == verdict.KindResidual {
			t.Errorf("residual ghost diff: %+v", f)
		}
	}
	for _, want := range []string{"HorizontalPodAutoscaler metadata.labels.team", "Service spec.sessionAffinityConfig"} {
		if !slices.ContainsFunc(fs, func(f verdict.Finding) bool {
			return f.Kind == verdict.KindDrift && f.Resource.Kind+" "+f.Path == want
		}) {
			t.Errorf("%s: not reported as drift", want)
		}
	}
}
