package generator_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
)

// A rule whose matcher kapp cannot build (a misspelt matcher kind, an empty one: kapp panics,
// "Unknown resource matcher specified") is named with its line and index by lint and check given
// the objects too, as by lint given the rules alone; it was kapp's Go value dump naming only the
// file's first document, exit 1 (newcomer walkthrough 8, N8-2).
func TestMatcherKappCannotBuildIsNamedWithTheObjects(t *testing.T) {
	for name, matcher := range map[string]string{"misspelt": "apiKindMatcher: {kind: HorizontalPodAutoscaler}", "empty": "{}"} {
		rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, replicas]
  type: copy
  sources: [existing]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
- path: [spec, minReplicas]
  type: copy
  sources: [existing]
  resourceMatchers:
  - `+matcher+`
`)
		in := fixture("hpa-replicas")
		for _, what := range []string{"desired", "desired and live"} {
			in := in
			if what == "desired" {
				in.Live = nil
			}
			findings, _, err := generator.Lint(in, []string{rules})
			if err != nil {
				t.Errorf("%s: lint with %s: %v, want findings", name, what, err)
				continue
			}
			found := false
			for _, f := range findings {
				found = found || f.Severity == lint.Error && f.Rule == 1 && f.Line == 13 && f.File == rules
			}
			if !found {
				t.Errorf("%s: lint with %s: no error for rebaseRules[1] at line 13: %+v", name, what, findings)
			}
		}
		_, err := generator.Check(in, []string{rules})
		if err == nil || !strings.Contains(err.Error(), rules+":13: rebaseRules[1]: ") || strings.Contains(err.Error(), "config.ResourceMatcher{") {
			t.Errorf("%s: check: %v, want an error naming %s:13: rebaseRules[1] and no Go value", name, err, rules)
		}
	}
}
