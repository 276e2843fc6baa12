package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// harmless keeps every declared value (a copy from new first); hiding lets the cluster's image
// win over the manifest's: a change of image made in Git is hidden.
const (
	harmless = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [new, existing]\n  path: [spec, revisionHistoryLimit]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n"
	hiding   = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing]\n  paths:\n  - [spec, template, spec, containers, {allIndexes: true}, image]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n"
)

// lineOf is the 1-based line of the first line of text starting with prefix: the oracle for
// where a rule is written, read from the text the test wrote.
func lineOf(t *testing.T, text, prefix string, after int) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if i+1 > after && strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starting %q after line %d in:\n%s", prefix, after, text)
	return 0
}

// hiddenImageAt checks the one hidden change (the image) and returns where the rule hiding it
// is said to be written.
func hiddenImageAt(t *testing.T, c *generator.Checked) (file string, line int, key string) {
	t.Helper()
	if len(c.Hidden) != 1 || !strings.HasSuffix(c.Hidden[0].Path, ".image") {
		t.Fatalf("want the image's change hidden, got %+v", c.Hidden)
	}
	at := c.Hidden[0].At
	return at.File, at.Line, at.Key
}

// Regression (newcomer2 finding 10): a rules file in the package's config directory, also given
// as --rules, is in force from the package's rendering; its hiding rule was placed at the
// directory, line 0 ("config, ytt output document N"), so GitHub got file=config,line=0. A file
// ytt passes through as written (no ytt annotations) keeps its lines: the rule's file and line.
func TestHiddenRuleInPackageFileAtItsLine(t *testing.T) {
	dir := t.TempDir()
	desired, err := os.ReadFile(filepath.Join("..", "fixtures", "hpa-replicas", "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rules := "# the package's rules\n" + harmless + "---\n" + hiding
	for name, text := range map[string]string{"app.yml": string(desired), "rebase-rules.yml": rules} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := fixture("hpa-replicas")
	in.Desired, in.Package = nil, yttrender.Package{Dirs: []string{dir}}
	path := filepath.Join(dir, "rebase-rules.yml")
	c, err := generator.Check(in, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	file, line, _ := hiddenImageAt(t, c)
	if want := lineOf(t, rules, "- type: copy", lineOf(t, rules, "---", 0)); file != path || line != want {
		t.Errorf("hiding rule at %s:%d, want %s:%d", file, line, path, want)
	}
}

// Regression (probe4 finding 6): a rules Secret's files are rendered together; a hiding rule in
// its key b.yml was placed at the key rebase-rules.yml ("data[\"rebase-rules.yml\"]", its line),
// an innocent rule. Each rendered document keeps the key it came from.
func TestHiddenRuleInSecretAtItsKey(t *testing.T) {
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"` }
	secret := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: rules\n  namespace: hpa-replicas\nstringData:\n" +
		"  b.yml: " + quote(hiding) + "\n  rebase-rules.yml: " + quote(harmless) + "\n"
	path := writeFile(t, "secret.yml", secret)
	c, err := generator.Check(fixture("hpa-replicas"), []string{path})
	if err != nil {
		t.Fatal(err)
	}
	file, line, key := hiddenImageAt(t, c)
	if want := lineOf(t, secret, "  b.yml:", 0); file != path || line != want || !strings.HasPrefix(key, `data["b.yml"] `) {
		t.Errorf("hiding rule at %s:%d %s, want %s:%d data[\"b.yml\"]", file, line, key, path, want)
	}
}
