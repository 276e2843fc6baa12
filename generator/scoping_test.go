package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Taking over a Deployment another tool created: kapp's built-in label scoping adds its app label
// to spec.selector, which is immutable, and the first deploy fails unless the manifest carries
// kapp.k14s.io/disable-default-label-scoping-rules (the captured adoption-view manifest does:
// kapp's deploy in the capture succeeded with it). Without it, explain names the failure and the
// annotation, and check fails on it without --fail-on-adoption (issue 25). The Service's selector
// is scoped too but mutable: no failure there.
func TestAdoptionNamesWhatKappsFirstDeployFailsOn(t *testing.T) {
	fixture := "../fixtures/adoption-view/desired.yaml"
	bs, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(bs), "\n") {
		if !strings.Contains(l, "kapp.k14s.io/disable-default-label-scoping-rules") {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(strings.Split(string(bs), "\n")) {
		t.Fatal("the fixture no longer carries the annotation")
	}
	without := filepath.Join(t.TempDir(), "desired.yaml")
	if err := os.WriteFile(without, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desired string
		blocks  []string
	}{
		{fixture, nil},
		{without, []string{"apps/Deployment adoption-view/web spec.selector.matchLabels"}},
	} {
		in := generator.Inputs{Desired: []string{tc.desired}, Live: []string{"../fixtures/adoption-view/live.yaml"}, Namespace: "adoption-view"}
		rep, _, err := generator.Explain(in)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rep.Resources {
			for _, f := range r.Findings {
				if f.Blocks {
					got = append(got, r.ID.String()+" "+f.Path.String())
					if !strings.Contains(f.Evidence, "kapp.k14s.io/disable-default-label-scoping-rules") || !strings.Contains(f.Evidence, "immutable") {
						t.Errorf("%s: the evidence must say why and name the annotation: %s", f.Path, f.Evidence)
					}
				}
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.blocks, ",") {
			t.Errorf("%s: deploy failures %v, want %v", tc.desired, got, tc.blocks)
		}
		c, err := generator.Check(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		failing := false
		for _, f := range c.Findings(verdict.Gate{}) {
			if f.Kind == verdict.KindAdoption && f.Fails {
				failing = true
			}
		}
		if failing != (tc.blocks != nil) {
			t.Errorf("%s: check fails on adoption without --fail-on-adoption: %v, want %v", tc.desired, failing, tc.blocks != nil)
		}
	}
}
