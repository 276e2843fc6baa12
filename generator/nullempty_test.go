package generator_test

import (
	"path/filepath"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// An empty list the manifest declares against the null the live object holds (the ClusterRole of
// fixtures/aggregated-clusterrole that is not aggregated, so that kapp's built-in rule for
// aggregated roles does not apply): kapp's engine compares null with [] until the generated rule
// sets the manifest's [] to null, and only that exact value: a declared rule stays a change.
func TestDeclaredEmptyListAgainstLiveNullIsKept(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "aggregated-clusterrole")
	const name = "rebasegen-aggregated-clusterrole-empty"
	for _, c := range []struct {
		name      string
		rules     any
		withMF    bool
		wantKept  int
		wantClass string
	}{
		{"empty, managedFields", []any{}, true, 1, "defaulted"},
		{"empty, no managedFields", []any{}, false, 1, "defaulted"},
		{"a rule declared", []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}}, true, 0, "drift"},
	} {
		t.Run(c.name, func(t *testing.T) {
			desired := fixtureObject(t, filepath.Join(dir, "desired.yaml"), name, func(o map[string]any) {
				o["rules"] = c.rules
			})
			live := fixtureObject(t, filepath.Join(dir, "live.yaml"), name, func(o map[string]any) {
				if o["rules"] != nil {
					t.Fatalf("the captured live object holds rules %v, not null", o["rules"])
				}
				if !c.withMF {
					delete(o["metadata"].(map[string]any), "managedFields")
				}
			})
			g, err := generator.Generate(generator.Inputs{Desired: []string{desired}, Live: []string{live}}, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range g.Report.Resources {
				for _, f := range r.Findings {
					if f.Path.String() == "rules" && string(f.Class) != c.wantClass {
						t.Errorf("rules: want %s, got %s (%s)", c.wantClass, f.Class, f.Evidence)
					}
				}
			}
			v := g.Verification
			if v.KeptPairs != c.wantKept {
				t.Errorf("want %d pair kept by kapp's engine under both bases, got %s\n%v", c.wantKept, v.Summary(), v.Residual)
			}
		})
	}
}
