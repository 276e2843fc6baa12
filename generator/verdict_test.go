package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// No silent success: kapp's engine runs on every pair, and a resource it still updates is named
// with its fields and their class. The human-drift fixture has drift on both resources.
func TestGenerateNamesEveryResourceKappStillUpdates(t *testing.T) {
	a, err := Analyze(Inputs{Desired: []string{"../fixtures/human-drift/desired.yaml"}, Live: []string{"../fixtures/human-drift/live.yaml"}, Namespace: "human-drift"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.Generate(synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := g.Verification
	if v.Paired != 2 || v.Kept != 0 || len(v.Updates) != 2 || v.Count(classify.Drift) != 2 || len(v.Ghosts()) != 0 {
		t.Fatalf("want 2 paired, 0 kept, 2 updated for drift and no ghost left; got %s: %+v", v.Verdict.Summary(), v.Updates)
	}
	var drift []string
	for _, u := range v.Updates {
		for _, f := range u.Fields {
			drift = append(drift, u.Resource.String()+" "+f.Path.String())
		}
	}
	want := "core/ConfigMap human-drift/shop-config data.log-level"
	if !strings.Contains(strings.Join(drift, "\n"), want) {
		t.Errorf("drift fields %v lack %s", drift, want)
	}
	if !strings.Contains(v.Summary(), "kapp keeps 0/2 paired resources under both bases and updates 2 (2 with drift)") {
		t.Errorf("summary: %s", v.Summary())
	}
}

// A field nothing explains keeps its resource updated: named as unknown, not counted as kept;
// accepted with --include-unknown it is ruled and the resource kept.
func TestUnknownFieldsAreNamedUntilAccepted(t *testing.T) {
	a, err := Analyze(Inputs{Desired: []string{"../fixtures/hpa-replicas/desired.yaml"}, Live: []string{"../fixtures/hpa-replicas/live.yaml"}, Namespace: "hpa-replicas"})
	if err != nil {
		t.Fatal(err)
	}
	// Make one ghost finding unknown, as when no evidence explains it.
	r := &a.Report.Resources[0]
	for i := range r.Findings {
		if f := &r.Findings[i]; f.Class == classify.Defaulted && !f.Covered() && f.Path.String() == "spec.revisionHistoryLimit" {
			f.Class = classify.Unknown
		}
	}
	g, err := a.Generate(synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := g.Verification
	if !v.OK() || v.Count(classify.Unknown) != 1 || v.Kept != 1 || len(v.Updates) != 1 || v.Updates[0].Fields[0].Path.String() != "spec.revisionHistoryLimit" {
		t.Fatalf("want the Deployment updated for its unknown field only: %s %+v", v.Verdict.Summary(), v.Updates)
	}
	g, err = a.Generate(synth.Options{IncludeUnknown: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Verification; !v.OK() || v.Kept != 2 || len(v.Updates) != 0 {
		t.Fatalf("--include-unknown: want both kept: %s %+v residual %+v hidden %+v", v.Verdict.Summary(), v.Updates, v.Residual, v.Hidden)
	}
}

// check exits 3 on unknown fields: they are listed, with kapp's verdict counted over every pair.
func TestCheckListsUnknownFields(t *testing.T) {
	a, err := Analyze(Inputs{Desired: []string{"../fixtures/hpa-replicas/desired.yaml"}, Live: []string{"../fixtures/hpa-replicas/live.yaml"}, Namespace: "hpa-replicas"})
	if err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(t.TempDir(), "rules.yml")
	os.WriteFile(rules, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644)
	r := &a.Report.Resources[0]
	for i := range r.Findings {
		if f := &r.Findings[i]; f.Path.String() == "spec.revisionHistoryLimit" {
			f.Class = classify.Unknown
		}
	}
	c, err := a.Check([]string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Unknown) != 1 || c.Unknown[0].Finding.Path.String() != "spec.revisionHistoryLimit" || c.Verdict.Paired != 2 {
		t.Errorf("want spec.revisionHistoryLimit unknown, 2 paired; got %+v %+v", c.Unknown, c.Verdict)
	}
}
