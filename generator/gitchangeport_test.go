package generator_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// A port renamed in Git and a defaulted field the manifest now declares are changes made in Git,
// as real kapp reports them (testdata/git-change-port/README.md): the old port item is in
// kapp.k14s.io/original without its defaulted key field (protocol), so it is a pending removal,
// not admission's; the new item with the node port the rules copy into it is applied as the
// manifest declares it, not hidden; imagePullPolicy, absent from what kapp last applied, is
// pending, not drift (newcomer2 findings 2 and 3).
func TestGitChangesOfKeyedItemsAndNewlyDeclaredFields(t *testing.T) {
	dir := filepath.Join("testdata", "git-change-port")
	in := generator.Inputs{Live: []string{filepath.Join(dir, "cap1")},
		Package: yttrender.Package{Dirs: []string{filepath.Join(dir, "config")}, ValuesFiles: []string{filepath.Join(dir, "values.yml")}}}
	c, err := generator.Check(in, []string{filepath.Join(dir, "config", "rebase-rules.yml")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"Service spec.ports[port=80,protocol=TCP]":                           false,
		"Service spec.ports[port=8081,protocol=TCP]":                         false,
		"Deployment spec.template.spec.containers[name=web].imagePullPolicy": false,
	}
	for _, f := range c.Findings(verdict.Gate{FailOnDrift: true}) {
		k := f.Resource.Kind + " " + f.Path
		if _, ok := want[k]; !ok {
			continue
		}
		if f.Kind != verdict.KindPending {
			t.Errorf("%s: %s (%s), want a pending change from Git", k, f.Kind, f.Evidence)
			continue
		}
		want[k] = true
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("%s: no pending change from Git reported", k)
		}
	}
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range g.Report.Resources {
		for _, f := range r.Findings {
			if f.Class == classify.Admission || f.Class == classify.Drift {
				t.Errorf("%s %s: classed %s (%s)", r.ID, f.Path, f.Class, f.Evidence)
			}
		}
	}
	for _, r := range g.Rules {
		if slices.Contains(r.Classes, classify.Admission) {
			t.Errorf("generate writes a rule for admission: %+v", r)
		}
	}
}
