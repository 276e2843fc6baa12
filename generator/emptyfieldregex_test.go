package generator_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
)

// An emptyFieldMatcher whose path holds a {regex} part makes kapp panic ("Unexpected path part")
// on every resource that has the fields before it: lint names the rule as an error, and check's
// error names it too and shows no pointer address (which differs on every run). Old code: lint 0
// errors; check a panic naming no rule, with a Go pointer (probe10 P10-5).
func TestEmptyFieldMatcherWithARegexIsNamed(t *testing.T) {
	rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, replicas]
  type: copy
  sources: [existing]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
      - emptyFieldMatcher:
          path: [metadata, annotations, {regex: "^x"}]
`)
	in := fixture("hpa-replicas")
	findings, _, err := generator.Lint(generator.Inputs{}, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range findings {
		found = found || f.Severity == lint.Error && f.Rule == 0 && strings.Contains(f.Message, "emptyFieldMatcher path part 2")
	}
	if !found {
		t.Errorf("lint: no error for the emptyFieldMatcher's regex part: %+v", findings)
	}
	_, err = generator.Check(in, []string{rules})
	if err == nil || !strings.Contains(err.Error(), rules+":12: rebaseRules[0]: emptyFieldMatcher path part 2") {
		t.Errorf("check: %v, want an error naming %s:12 rebaseRules[0]", err, rules)
	}
	if err != nil && regexp.MustCompile(`0x[0-9a-f]{4,}`).MatchString(err.Error()) {
		t.Errorf("check's error shows a pointer address: %v", err)
	}
}
