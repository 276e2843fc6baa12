package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A live kapp.k14s.io/original holding null, on which kapp's deploy panics: check fails naming
// the live object, and explain, which runs no kapp, exited 0 saying nothing of it (probe11 P11-5).
// explain now warns in check's words (the oracle: check's own error line), and still exits 0.
func TestExplainWarnsOfOriginalNull(t *testing.T) {
	in := scenario(t, "hpa-replicas")
	raw, err := os.ReadFile(in[3])
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	start := strings.Index(text, "    kapp.k14s.io/original: '")
	if start < 0 {
		t.Fatal("the fixture's Deployment has no kapp.k14s.io/original")
	}
	end := start + strings.Index(text[start:], "\n")
	live := filepath.Join(t.TempDir(), "live.yaml")
	if err := os.WriteFile(live, []byte(text[:start]+"    kapp.k14s.io/original: \"null\""+text[end:]), 0o644); err != nil {
		t.Fatal(err)
	}
	in[3] = live
	check := rebasegen(t, append([]string{"check", "--rules", "../../fixtures/lint/hpa-replicas-all-deployments/rules.yml"}, in...)...)
	i := strings.Index(check.stderr, "--live ")
	if check.code != 1 || i < 0 || !strings.Contains(check.stderr, "holds null") {
		t.Fatalf("check: exit %d, want 1 naming the live object's annotation:\n%s", check.code, check.stderr)
	}
	words, _, _ := strings.Cut(check.stderr[i:], "\n")
	explain := rebasegen(t, append([]string{"explain"}, in...)...)
	if explain.code != 0 || !strings.Contains(explain.stderr, "warning: "+words+"\n") {
		t.Errorf("explain: exit %d, want 0 and the warning %q:\n%s", explain.code, "warning: "+words, explain.stderr)
	}
}
