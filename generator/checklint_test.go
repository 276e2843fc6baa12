package generator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
)

// check lints every rule file kapp reads, in every format: a Secret's rebase-rules.yml (its
// findings on the Secret file's own lines) and a package's config directory rendered with ytt,
// which used to be skipped with a note.
func TestCheckLintsSecretFormatAndPackageDirectories(t *testing.T) {
	widen := func(s string) string { // a key kapp ignores: the rule then matches every Deployment
		return strings.Replace(s, "apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}", "apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment, name: web}", 1)
	}
	secret := rulesFile(t, emit.FormatSecret, widen)
	dir := t.TempDir()
	data, err := os.ReadFile(rulesFile(t, emit.FormatYTT, widen))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rebase-rules.yml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	lineOf := func(data []byte) int { // the line of the widened matcher
		return 1 + strings.Count(string(data[:strings.Index(string(data), "kind: Deployment, name: web}")]), "\n")
	}
	secretData, _ := os.ReadFile(secret)
	for _, tc := range []struct {
		rules, where string
	}{
		{secret, fmt.Sprintf("%s:%d", secret, lineOf(secretData))},
		// the package's file, on the line ytt positions the matcher at (issue 24: the directory, line 0)
		{dir, fmt.Sprintf("%s:%d", filepath.Join(dir, "rebase-rules.yml"), lineOf(data))},
	} {
		c, err := generator.Check(hpaInputs, []string{tc.rules})
		if err != nil {
			t.Fatal(err)
		}
		if c.LintSkipped != nil {
			t.Errorf("%s: lint skipped: %v", tc.rules, c.LintSkipped)
		}
		var got []string
		for _, f := range c.Lint {
			if strings.Contains(f.Message, `unknown key "name" in apiVersionKindMatcher`) {
				got = append(got, fmt.Sprintf("%s:%d", f.File, f.Line))
			}
		}
		if fmt.Sprint(got) != "["+tc.where+"]" {
			t.Errorf("%s: want the unknown key at %s, got %v in %+v", tc.rules, tc.where, got, c.Lint)
		}
	}
}
