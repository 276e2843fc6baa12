package generator_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// TestMatcherFedByTheLiveObjectIsJudgedBothWays (probe8 P8-7, plain-rule form): a rule whose
// matcher reads a field an earlier rule copies from the live object (sources: [existing]) acts
// or not as the live object holds that field when kapp deploys. A copy of kubectl's restartedAt
// annotation (or of any annotation) arms a copy of the image gated on it once someone restarts
// the Deployment after the capture: the image bump made in Git is hidden from then on, while
// check of the capture said pending, exit 0. The reverse gate (the rule acts only while the
// live object lacks the annotation, which the capture holds) hides it once the annotation is
// gone. kapp evaluates each rule's matchers on the object the earlier rules rebased
// (diff/rebased_resource.go): the check judges such a rule with the live object holding a value
// at the gate and holding none.
func TestMatcherFedByTheLiveObjectIsJudgedBothWays(t *testing.T) {
	const image = "spec.template.spec.containers[name=web].image"
	for _, c := range []struct {
		name, scenario, copied, gate string
		oneRule                      bool // one rule of both paths: kapp matches each path's mod in turn
	}{
		{"restartedAt arms a notMatcher of an emptyFieldMatcher", "hpa-replicas",
			"[spec, template, metadata, annotations, kubectl.kubernetes.io/restartedAt]",
			"notMatcher: {matcher: {emptyFieldMatcher: {path: [spec, template, metadata, annotations]}}}", false},
		{"an annotation arms a hasAnnotationMatcher", "hpa-replicas",
			"[metadata, annotations, example.com/frozen]",
			"hasAnnotationMatcher: {keys: [example.com/frozen]}", false},
		{"restartedAt, held as captured, disarms an emptyFieldMatcher", "rollout-restart",
			"[spec, template, metadata, annotations, kubectl.kubernetes.io/restartedAt]",
			"emptyFieldMatcher: {path: [spec, template, metadata, annotations]}", false},
		{"restartedAt, copied by the same rule's first path, disarms its second", "rollout-restart",
			"[spec, template, metadata, annotations, kubectl.kubernetes.io/restartedAt]",
			"emptyFieldMatcher: {path: [spec, template, metadata, annotations]}", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture(c.scenario)
			generated, _ := generatedRules(t, in)
			in = imageBumped(t, in)
			rules := `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  paths:
  - ` + c.copied + `
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: Deployment, namespace: ` + c.scenario + `, name: web}
- type: copy
  sources: [existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, image]
  resourceMatchers:
  - andMatcher:
      matchers:
      - kindNamespaceNameMatcher: {kind: Deployment, namespace: ` + c.scenario + `, name: web}
      - ` + c.gate + `
`
			if c.oneRule {
				rules = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  paths:
  - ` + c.copied + `
  - [spec, template, spec, containers, {allIndexes: true}, image]
  resourceMatchers:
  - andMatcher:
      matchers:
      - kindNamespaceNameMatcher: {kind: Deployment, namespace: ` + c.scenario + `, name: web}
      - ` + c.gate + `
`
			}
			gated := writeFile(t, "gated.yml", rules)
			files := []string{generated, gated}
			if c.oneRule {
				files = []string{gated} // generate copies restartedAt itself (kubectl's)
			}
			ch, err := generator.Check(in, files)
			if err != nil {
				t.Fatal(err)
			}
			var hidden, by []string
			for _, h := range ch.Hidden {
				hidden, by = append(hidden, h.String()), append(by, h.At.String())
			}
			want := "apps/Deployment " + c.scenario + "/web " + image
			if ch.OK() || !strings.Contains(strings.Join(hidden, "\n"), want) {
				t.Errorf("check passes (%v) with hidden %q, want %s hidden", ch.OK(), hidden, want)
			}
			if rule := "gated.yml:10"; !c.oneRule && !strings.Contains(strings.Join(by, "\n"), rule) ||
				c.oneRule && !strings.Contains(strings.Join(by, "\n"), "gated.yml:4") {
				t.Errorf("hidden by %q: want the gated rule", by)
			}
		})
	}
}
