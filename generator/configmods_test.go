package generator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
)

// hpaWithConfig is the hpa-replicas manifests with a kapp Config added in Git; kapp's last apply
// (kapp.k14s.io/original in the live fixture) holds no label team and no kapp label in the pod
// template's annotations.
func hpaWithConfig(t *testing.T, config string) generator.Inputs {
	t.Helper()
	base, err := os.ReadFile(filepath.Join("..", "fixtures", "hpa-replicas", "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	desired := writeFile(t, "desired.yaml", string(base)+"---\napiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n"+config)
	return generator.Inputs{Desired: []string{desired}, Live: []string{filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")}, Namespace: "hpa-replicas"}
}

// classesAt lists explain's findings whose path holds under, as "resource path class".
func classesAt(t *testing.T, in generator.Inputs, under string) []string {
	t.Helper()
	rep, _, err := generator.Explain(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rep.Resources {
		for _, f := range r.Findings {
			if strings.Contains(f.Path.String(), under) {
				out = append(out, fmt.Sprintf("%s %s %s", r.ID, f.Path, f.Class))
			}
		}
	}
	slices.Sort(out)
	return out
}

// generatedPasses generates rules for in and checks them: nothing left, nothing hidden, the
// Config's labels pending; it returns the rules file.
func generatedPasses(t *testing.T, in generator.Inputs, pending int) string {
	t.Helper()
	rules, g := generatedRules(t, in)
	v := g.Verification
	if len(v.Residual) != 0 || len(v.Hidden) != 0 || len(v.Pending) != pending {
		t.Fatalf("generate: residual %+v hidden %+v pending %d, want %d", v.Residual, v.Hidden, len(v.Pending), pending)
	}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if !c.OK() || len(c.Pending) != pending {
		t.Fatalf("check of the generated rules: hidden %+v residual %+v pending %d", c.Hidden, c.Residual, len(c.Pending))
	}
	return rules
}

// A kapp Config added in Git whose additionalLabels label every object and pod template is a
// change kapp applies on this deploy: its labels were 'defaulted' ("a zero value the API server's
// Go type omits", for the value payments), generate wrote ytt rules stripping them wherever the
// live object lacks them and check passed those rules, so kapp never applied the label (probe8
// P8-1). A hand-written remove rule of the label passed check and lint.
func TestCheckConfigLabelsAddedInGitArePending(t *testing.T) {
	in := hpaWithConfig(t, "additionalLabels:\n  team: payments\n")
	want := "[apps/Deployment hpa-replicas/web metadata.labels.team pending" +
		" apps/Deployment hpa-replicas/web spec.template.metadata.labels.team pending" +
		" autoscaling/HorizontalPodAutoscaler hpa-replicas/web metadata.labels.team pending]"
	if got := fmt.Sprint(classesAt(t, in, "team")); got != want {
		t.Errorf("explain:\n got %s\nwant %s", got, want)
	}
	rules := generatedPasses(t, in, 3)
	remove := writeFile(t, "remove.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: remove
  paths:
  - [metadata, labels, team]
  - [spec, template, metadata, labels, team]
  resourceMatchers:
  - anyMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
      - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
`)
	c, err := generator.Check(in, []string{rules, remove})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range c.Hidden {
		got = append(got, fmt.Sprintf("%s %s <- %s %s", h.Resource, h.Path, filepath.Base(h.At.File), h.At.Key))
	}
	slices.Sort(got)
	want = "[apps/Deployment hpa-replicas/web metadata.labels.team <- remove.yml rebaseRules[0]" +
		" apps/Deployment hpa-replicas/web spec.template.metadata.labels.team <- remove.yml rebaseRules[0]" +
		" autoscaling/HorizontalPodAutoscaler hpa-replicas/web metadata.labels.team <- remove.yml rebaseRules[0]]"
	if fmt.Sprint(got) != want {
		t.Errorf("check with the remove rule: hidden\n got %v\nwant %s", got, want)
	}
	findings, _, err := generator.Lint(in, []string{remove})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(findings, func(f lint.Finding) bool {
		return f.Severity == lint.Error && strings.Contains(f.Message, "hides a change made in Git")
	}) {
		t.Errorf("lint of the remove rule: no error: %+v", findings)
	}
}

// An ownership label rule added in Git has kapp write its labels into the pod template's
// annotations: a change kapp applies, which explain left out (the field diff hides kapp's keys)
// and generate called a ghost diff left, a bug (probe8, P8-5 'Related'). A rule removing those
// annotations hides it.
func TestCheckOwnershipLabelRuleAddedInGitIsPending(t *testing.T) {
	in := hpaWithConfig(t, `ownershipLabelRules:
- path: [spec, template, metadata, annotations]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	want := `[apps/Deployment hpa-replicas/web spec.template.metadata.annotations["kapp.k14s.io/app"] pending` +
		` apps/Deployment hpa-replicas/web spec.template.metadata.annotations["kapp.k14s.io/association"] pending]`
	if got := fmt.Sprint(classesAt(t, in, "spec.template.metadata.annotations")); got != want {
		t.Errorf("explain:\n got %s\nwant %s", got, want)
	}
	rules := generatedPasses(t, in, 2)
	remove := writeFile(t, "remove.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: remove
  paths: [[spec, template, metadata, annotations]]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	c, err := generator.Check(in, []string{rules, remove})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(hiddenPaths(c)); got != `[spec.template.metadata.annotations["kapp.k14s.io/app"] spec.template.metadata.annotations["kapp.k14s.io/association"]]` {
		t.Errorf("check with the remove rule: hidden %s", got)
	}
	for _, h := range c.Hidden {
		if filepath.Base(h.At.File) != "remove.yml" {
			t.Errorf("hidden %s blamed on %s %s, want remove.yml", h.Path, h.At.File, h.Rule)
		}
	}
}
