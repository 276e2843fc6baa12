package generator_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// A rule in force that copies metadata.annotations from the live object (as generate once wrote
// for kapp's empty annotations map, kind-wide) keeps another tool's annotations on an object kapp
// takes over: kapp's deploy applies its rebased resource, which holds them. check said "kapp
// changes it once" (newcomer2 finding 11); kapp's engine says it keeps them: drift kept by that
// rule. The label no rule copies stays an adoption change, and without the rule so do all.
func TestAdoptionTheRulesKeepIsNoOneTimeChange(t *testing.T) {
	const rules = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [metadata, annotations]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: v1, kind: Service}
      - emptyFieldMatcher: {path: [metadata, annotations]}
`
	const svc = "core/Service adoption-view/web "
	c, err := generator.Check(fixture("adoption-view"), []string{writeFile(t, "rules.yml", rules)})
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]string{}
	for _, k := range c.DriftKept {
		kept[k.String()] = k.Rule
	}
	for _, p := range []string{`metadata.annotations["meta.helm.sh/release-name"]`, `metadata.annotations["meta.helm.sh/release-namespace"]`} {
		if !strings.Contains(kept[svc+p], "rebaseRules[0]") {
			t.Errorf("%s: not kept by rebaseRules[0] (kept: %v)", p, kept)
		}
		for _, a := range c.Adoption {
			if a.Resource.String()+" "+a.Finding.Path.String() == svc+p {
				t.Errorf("%s: still an adoption change kapp makes once", p)
			}
		}
	}
	adoption := func(c *generator.Checked) map[string]bool {
		out := map[string]bool{}
		for _, a := range c.Adoption {
			out[a.Resource.String()+" "+a.Finding.Path.String()] = true
		}
		return out
	}
	if !adoption(c)[svc+`metadata.labels["app.kubernetes.io/managed-by"]`] {
		t.Errorf("Helm's label, which no rule copies, is no longer adoption: %v", adoption(c))
	}
	none, err := generator.Check(fixture("adoption-view"), []string{writeFile(t, "none.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n")})
	if err != nil {
		t.Fatal(err)
	}
	if a := adoption(none); !a[svc+`metadata.annotations["meta.helm.sh/release-name"]`] || len(none.DriftKept) != 0 {
		t.Errorf("without the rule: adoption %v, kept %v", a, none.DriftKept)
	}
}
