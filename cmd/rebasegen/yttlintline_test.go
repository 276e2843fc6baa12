package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lint's findings on rules ytt renders name the line a person edits, where ytt positions the rule:
// a ytt-format file's own line, an overlay's for what the overlay wrote (issue 24: every finding
// on a ytt-format file said line 0, which is no line; text rules.yml:0, github line=0), in every
// format. The lines are counted by hand.
func TestLintYTTRulesAtTheTemplatesLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		// the source "live", which kapp skips, at line 7
		"rules.yml": `#@ load("@ytt:data", "data")
---
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [live]
  paths:
  - [spec, replicas]
  resourceMatchers:
  - kindNamespaceNameMatcher:
      kind: Deployment
      namespace: #@ data.values.namespace
      name: web
`,
		// an allMatcher the overlay appends, at its line 10
		"overlay.yml": `#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.subset({"kind": "Config"})
---
rebaseRules:
#@overlay/append
- type: remove
  paths:
  - [spec, replicas]
  resourceMatchers:
  - allMatcher: {}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rules, overlay := filepath.Join(dir, "rules.yml"), filepath.Join(dir, "overlay.yml")
	for _, c := range []struct {
		path, format string
		want         []string
	}{
		{rules, "text", []string{rules + `:7: error: rebaseRules[0]: ytt output document 1: source "live"`}},
		{dir, "text", []string{rules + `:7: error: rebaseRules[0]: `, overlay + ":10: warning: rebaseRules[1]: ytt output document 1: allMatcher"}},
		{dir, "github", []string{"::error file=" + rules + ",line=7::rebaseRules[0]: ", "::warning file=" + overlay + ",line=10::rebaseRules[1]: "}},
		{dir, "json", []string{`"file": "` + rules + `",
      "line": 7,
      "rule": 0,`, `"file": "` + overlay + `",
      "line": 10,
      "rule": 1,`}},
	} {
		r := rebasegen(t, "lint", "-r", c.path, "--value", "namespace=shop", "-o", c.format)
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("lint -r %s -o %s: no %q in\n%s", c.path, c.format, w, r.stdout)
			}
		}
		if r.code != exitLint {
			t.Errorf("lint -r %s -o %s: exit %d\n%s", c.path, c.format, r.code, r.stderr)
		}
	}
}
