package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintClassifiesAsCheck (issue 24, newcomer9 N9-5): lint --live judges each rule with every
// rule in force, as check judges it, so it takes the inputs check classifies with. Rules generated
// with a ruleset naming the controller that rewrites a list (atomic-list-job), or with a CRD given
// apart from the objects (crd-defaults), are clean in check, and must be in lint given the same
// inputs; lint had no --ruleset nor --crd, and called the first rule one hiding a change made in
// Git, so following its suggestion (delete it) brought the ghost diff back. The oracle is check's
// verdict on the same rules and inputs.
func TestLintClassifiesAsCheck(t *testing.T) {
	dir := t.TempDir()
	fixture := func(name, file string) string { return filepath.Join("..", "..", "fixtures", name, file) }
	// crd-defaults with its CRD apart: desired and live objects without it, the CRD with --crd
	split := func(file string) (crd, rest string) {
		data, err := os.ReadFile(fixture("crd-defaults", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			if strings.Contains(doc, "\nkind: CustomResourceDefinition\n") {
				crd += "---\n" + doc + "\n"
			} else {
				rest += "---\n" + doc + "\n"
			}
		}
		return crd, rest
	}
	_, desiredCR := split("desired.yaml")
	liveCRD, liveCR := split("live.yaml")
	crdInputs := []string{"-d", writeIn(t, dir, "desired.yaml", desiredCR), "-l", writeIn(t, dir, "live.yaml", liveCR), "-n", "crd-defaults",
		"--crd", writeIn(t, dir, "crds.yaml", liveCRD)}
	rulesetInputs := append(scenario(t, "atomic-list-job"), "--ruleset", fixture("atomic-list-job", "ruleset.yaml"))
	for _, tc := range []struct {
		name string
		in   []string
	}{{"ruleset", rulesetInputs}, {"crd", crdInputs}} {
		name, in := tc.name, tc.in
		rules := filepath.Join(dir, name+"-rules.yml")
		if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, in...)...); r.code != 0 {
			t.Fatalf("%s: generate: exit %d\n%s", name, r.code, r.stderr)
		}
		if r := rebasegen(t, append([]string{"check", "--rules", rules}, in...)...); r.code != 0 {
			t.Fatalf("%s: check: exit %d, want 0 (the oracle)\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		r := rebasegen(t, append([]string{"lint", "--rules", rules}, in...)...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "0 errors") {
			t.Errorf("%s: lint with check's inputs: exit %d, want 0 and no finding as check\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		if name != "ruleset" {
			continue
		}
		// the ruleset is what makes the rule right: without it the list is the manifest's alone
		r = rebasegen(t, append([]string{"lint", "--rules", rules}, in[:len(in)-2]...)...)
		if r.code != exitLint || !strings.Contains(r.stdout, "hides a change made in Git") {
			t.Errorf("ruleset: lint without --ruleset: exit %d, want %d and the rule hiding a change made in Git\n%s%s", r.code, exitLint, r.stdout, r.stderr)
		}
	}
}
