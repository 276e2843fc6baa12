package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression (probe4 finding 10): an error naming a rules file whose name holds a line break
// (here kapp failing on the file's rule) printed the name raw: the one-line error became three
// lines, two of them starting as the file name chose (a forged workflow command, a forged summary).
// The name is escaped as findings escape it.
func TestErrorNamingAFileKeepsItOnOneLine(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(t.TempDir(), "q\n##[error]injected by file name\n::warning::x.yml")
	if err := os.WriteFile(rules, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing]\n  paths:\n  - [spec, {index: -1}, x]\n  resourceMatchers:\n  - allMatcher: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, append([]string{"check", "--rules", rules, "--output", "github"}, fix...)...)
	if r.code != exitError || !strings.Contains(r.stderr, `q\n#\x23[error]injected by file name\n::warning::x.yml: document 1`) {
		t.Errorf("want exit 1 and the file named on one line, escaped; got %d:\n%s", r.code, r.stderr)
	}
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, ":") {
			t.Errorf("a line of stderr starts as the file name chose: %q", l)
		}
	}
}
