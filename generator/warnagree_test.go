package generator_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// explain and generate give the same advice on the manifest: a field kapp's built-in rules
// already cover (an aggregated ClusterRole's rules: [], which the aggregation controller fills)
// needs no change, so neither says to remove it; the StatefulSet replicas its autoscaler rewrites
// does, in both (newcomer7 N7-9 c).
func TestExplainAndGenerateAgreeOnWarnings(t *testing.T) {
	for _, name := range []string{"aggregated-clusterrole", "hpa-statefulset"} {
		rep, _, err := generator.Explain(fixture(name))
		if err != nil {
			t.Fatal(err)
		}
		g, err := generator.Generate(fixture(name), synth.Options{})
		if err != nil {
			t.Fatal(err)
		}
		warnings := strings.Join(g.Warnings, "\n")
		explained := 0
		for _, r := range rep.Resources {
			for _, f := range r.Findings {
				if f.Warning == "" {
					continue
				}
				explained++
				if !strings.Contains(warnings, r.ID.String()) || !strings.Contains(warnings, f.Path.String()+": "+f.Warning) {
					t.Errorf("%s: explain warns %s %s: %s; generate does not:\n%s", name, r.ID, f.Path, f.Warning, warnings)
				}
				if f.Covered() {
					t.Errorf("%s: explain warns on %s %s, which kapp's or the package's rules cover", name, r.ID, f.Path)
				}
			}
		}
		if want := map[string]int{"aggregated-clusterrole": 0, "hpa-statefulset": 1}[name]; explained != want || strings.Count(warnings, "remove it from the manifest") != want {
			t.Errorf("%s: explain warns %d times, generate:\n%s\nwant %d each", name, explained, warnings, want)
		}
	}
}
