package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulesWithOwnMessages (issue 24, newcomer12 N12-5): `rebasegen generate ... &> rules.yml`
// writes generate's notes and summary (stderr) into the rules file; check and lint said only
// "invalid YAML: yaml: line 3: could not find expected ':'", for a line 1 that is rebasegen's own
// note. The error says the file starts with rebasegen's messages and how to write rules without
// them, for either target; a file of other invalid YAML gets no such hint.
func TestRulesWithOwnMessages(t *testing.T) {
	const hint = "the file starts with rebasegen's own messages, its stderr written with the output by &> or 2>&1: write rules with --output-file, or send stderr elsewhere: 2>/dev/null"
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		target []string
	}{{"hpa-replicas", nil}, {"argocd/argo-hpa", []string{"--target", "argocd"}}} {
		fix := scenario(t, tc.name)[:4] // without -n: generate notes the namespace it inferred
		gen := rebasegen(t, append(append([]string{"generate", "--quiet=false"}, tc.target...), fix...)...)
		if gen.code != 0 || !strings.HasPrefix(gen.stderr, "note: namespace ") || !strings.Contains(gen.stderr, "; ") {
			t.Fatalf("generate %s: exit %d, want a note and a summary on stderr (the test tests nothing otherwise):\n%s", tc.name, gen.code, gen.stderr)
		}
		rules := filepath.Join(dir, strings.ReplaceAll(tc.name, "/", "-")+".yml")
		if err := os.WriteFile(rules, []byte(gen.stderr+gen.stdout), 0o644); err != nil { // as &> writes them
			t.Fatal(err)
		}
		for _, cmd := range [][]string{append(append([]string{"check", "--rules", rules}, tc.target...), fix...), {"lint", "--rules", rules}} {
			r := rebasegen(t, cmd...)
			checkRejected(t, cmd[0]+" "+tc.name, r, rules+": document 1 (line 1): invalid YAML", hint)
		}
	}
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("notes on rules\napiVersion: v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := rebasegen(t, "lint", "--rules", bad); r.code != exitError || !strings.Contains(r.stderr, "invalid YAML") || strings.Contains(r.stderr, "rebasegen's own messages") {
		t.Errorf("lint of invalid YAML that is not rebasegen's messages: exit %d, stderr:\n%s\nwant the YAML error without the hint", r.code, r.stderr)
	}
}
