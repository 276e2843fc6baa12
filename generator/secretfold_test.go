package generator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// secretPR is fixtures/secret-empty-values' manifest with its stringData replaced (the Secret's
// namespace declared, as a package does) and the rules generated for the unchanged manifest.
func secretPR(t *testing.T, stringData string) (pr, live, rules string) {
	t.Helper()
	dir := filepath.Join("..", "fixtures", "secret-empty-values")
	base, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const sd = "stringData:\n  blank: \"\"\n"
	if !strings.HasSuffix(string(base), sd) {
		t.Fatalf("the fixture's manifest no longer ends with %q", sd)
	}
	live = filepath.Join(dir, "live.yaml")
	unchanged := writeFile(t, "desired.yaml", string(base))
	rules, g := generatedRules(t, generator.Inputs{Desired: []string{unchanged}, Live: []string{live}, Namespace: "secret-empty-values"})
	if !g.Verification.OK() {
		t.Fatalf("generated rules for the unchanged manifest: %s", g.Verification.Summary())
	}
	return writeFile(t, "pr.yaml", strings.TrimSuffix(string(base), sd)+stringData), live, rules
}

// The generated Secret rule folds a stringData key into data where the live data holds its
// value (what the API server stored). A key added beside it stays in stringData, which kapp
// applies: only that key is a change (data.token, pending), nothing hidden; moving a key from
// data to stringData with the same value stores the same Secret: no change at all. Both were
// "hidden: stringData" by the fold, check exited 3 and generate refused its own rules
// (newcomer walkthrough 6, N6-1).
func TestSecretStringDataKeyBesideAFoldedOne(t *testing.T) {
	for _, tc := range []struct {
		name, stringData string
		pending          string
	}{
		{"key added", "stringData:\n  blank: \"\"\n  token: s3cr3t-value\n", "[data.token]"},
		{"key moved from data", "stringData:\n  blank: \"\"\n  empty: \"\"\n", "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, live, rules := secretPR(t, tc.stringData)
			if tc.name == "key moved from data" {
				b, _ := os.ReadFile(pr)
				moved := strings.Replace(string(b), "  empty: \"\"\n  unset: null\n", "  unset: null\n", 1)
				if moved == string(b) {
					t.Fatal("the fixture's data no longer holds empty before unset")
				}
				pr = writeFile(t, "pr.yaml", moved)
			}
			in := generator.Inputs{Desired: []string{pr}, Live: []string{live}, Namespace: "secret-empty-values"}
			c, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			var pending []string
			for _, p := range c.Pending {
				pending = append(pending, p.Finding.Path.String())
			}
			if len(c.Hidden) != 0 || !c.OK() || fmt.Sprint(pending) != tc.pending {
				t.Errorf("check: hidden %v, residual %v, pending %v (want %s)", hiddenPaths(c), c.Residual, pending, tc.pending)
			}
			g, err := generator.Generate(in, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Verification.Hidden) != 0 {
				t.Errorf("generate refuses its own rules: hidden %+v", g.Verification.Hidden)
			}
		})
	}
}

// A stringData key removed in Git: kapp.k14s.io/original holds it as stringData, which the API
// server stored in data, so kapp's next update drops data.blank: a pending removal from Git. It
// was a residual ghost diff of class admission ("kapp did not send it"), check exited 3
// (newcomer walkthrough 6, N6-10).
func TestSecretStringDataKeyRemovedInGitIsPending(t *testing.T) {
	pr, live, rules := secretPR(t, "")
	raw, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"stringData":{"blank":""}`) {
		t.Fatal("the live Secret's kapp.k14s.io/original no longer holds stringData.blank")
	}
	c, err := generator.Check(generator.Inputs{Desired: []string{pr}, Live: []string{live}, Namespace: "secret-empty-values"}, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, p := range c.Pending {
		pending = append(pending, p.Finding.Path.String())
	}
	if !c.OK() || len(c.Hidden) != 0 || fmt.Sprint(pending) != "[data.blank]" {
		t.Errorf("check: residual %+v, hidden %v, pending %v, want only data.blank pending", c.Residual, hiddenPaths(c), pending)
	}
}
