package generator_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A rule copying the whole spec from the live object hides the image change Git holds: the
// mutation check finds it, and so does the question about the value Git holds; each was reported,
// and counted ("8 declared fields hidden" for 7 fields), once per finder (probe7, newcomer5 F5).
func TestCheckHiddenFieldReportedOnce(t *testing.T) {
	in := fixture("hpa-replicas")
	generated, _ := generatedRules(t, in)
	spec := writeFile(t, "spec.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing, new]
  paths: [[spec]]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	base, err := os.ReadFile(in.Desired[0])
	if err != nil {
		t.Fatal(err)
	}
	in.Desired = []string{writeFile(t, "bumped.yaml", strings.Replace(string(base), "image: nginx:1.25\n", "image: nginx:1.27\n", 1))}
	c, err := generator.Check(in, []string{generated, spec})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, f := range c.Findings(verdict.Gate{}) {
		if f.Kind == verdict.KindHidden {
			seen[f.Resource.String()+" "+f.Path]++
		}
	}
	if seen["apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image"] == 0 {
		t.Fatalf("the image is not hidden: %v", seen)
	}
	for field, n := range seen {
		if n > 1 {
			t.Errorf("%s reported hidden %d times", field, n)
		}
	}
	if len(c.Hidden) != len(seen) {
		t.Errorf("%d hidden counted for %d fields", len(c.Hidden), len(seen))
	}
}
