package generator_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
)

// A person's change to a field the manifest leaves to the API server's defaulting (kubectl patch
// of a CronJob's suspend: true) is drift: generate rightly writes no copy of it, and check warns
// (exit 0). But kapp's deploy reverts it to the default, and the rules generated with the drift
// in the live objects lack that default's copy: on the capture after the deploy, check said
// residual ghost diff and stale, exit 3 (newcomer16 N16-7, both captures real: kapp v0.66.0 on
// kube-apiserver v1.37.2, the CronJob alone kept of them). The drift now says so where it is
// reported, in generate's and check's text, JSON and github output: the server defaults the
// field, kapp's deploy reverts it, regenerate the rules after the deploy, from a new capture.
// The claim's oracle is kapp's engine (check's verification) on the capture after the deploy:
// the rules from before it leave suspend a ghost diff, the rules regenerated from it do not.
func TestDriftOfADefaultedFieldSaysToRegenerateAfterTheDeploy(t *testing.T) {
	dir := filepath.Join("testdata", "defaulted-drift")
	before := generator.Inputs{Live: []string{filepath.Join(dir, "capA.yaml")}, Namespace: "shop"}
	after := generator.Inputs{Live: []string{filepath.Join(dir, "capB.yaml")}, Namespace: "shop"}
	const path = "spec.suspend"
	const said = "regenerate them after the deploy, from a new capture"
	has := func(fs []verdict.Finding) (found bool) {
		for _, f := range fs {
			if f.Kind == verdict.KindDrift && f.Path == path {
				found = true
				if !strings.Contains(f.Evidence, "defaults") || !strings.Contains(f.Evidence, "false") || !strings.Contains(f.Evidence, said) {
					t.Errorf("drift of %s does not say the server defaults it to false and to %s: %s", path, said, f.Evidence)
				}
			}
		}
		return found
	}

	rules, g := generatedRules(t, before)
	if !has(g.Findings(verdict.Gate{})) {
		t.Fatalf("generate: no drift at %s", path)
	}
	var text bytes.Buffer
	if err := verdict.WriteGenerate(&text, g.Verification.Verdict); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), said); n != 1 {
		t.Errorf("generate's text says %q %d times, want once:\n%s", said, n, text.String())
	}
	c, err := generator.Check(before, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	fs := c.Findings(verdict.Gate{})
	if !has(fs) || verdict.Failing(fs) {
		t.Errorf("check before the deploy: want the drift of %s, not failing: %+v", path, fs)
	}
	for _, ft := range []format.Format{format.Text, format.JSON, format.GitHub} {
		var out bytes.Buffer
		if err := verdict.Write(&out, ft, verdict.CheckReport(c.Verdict, fs, c.Lint), "rules.yml"); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), said); n != 1 {
			t.Errorf("check -o %s says %q %d times, want once:\n%s", ft, said, n, out.String())
		}
	}

	// kapp's engine, after the deploy: the rules generated before it leave the default a ghost
	// diff; regenerated from the new capture, they do not
	residual := func(rules string) bool {
		c, err := generator.Check(after, []string{rules})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.Findings(verdict.Gate{}) {
			if f.Kind == verdict.KindResidual && f.Path == path {
				return true
			}
		}
		return false
	}
	if !residual(rules) {
		t.Errorf("after the deploy, the rules generated before it leave no ghost diff at %s: the claim is wrong", path)
	}
	if regenerated, _ := generatedRules(t, after); residual(regenerated) {
		t.Errorf("after the deploy, the rules regenerated from the new capture leave a ghost diff at %s", path)
	}
}
