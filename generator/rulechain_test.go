package generator_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// deploymentYTT is yttRuleConfig for the hpa-replicas Deployment.
func deploymentYTT(overlay string) string {
	return strings.Replace(yttRuleConfig(overlay), "{apiVersion: crd-defaults.rebasegen.dev/v1alpha1, kind: Backup}", "{apiVersion: apps/v1, kind: Deployment}", 1)
}

// kapp matches each rebase rule on the resource as kapp deploy prepared it (its ownership labels)
// and the earlier rules rebased it, in order (diff/rebased_resource.go), and a ytt rule sees that
// resource too. The mutation check chose the values to change by matching the rules on the
// manifest as written, and running a ytt rule alone on it: a rule matching only what kapp's
// built-in rules copied from the live Deployment (its revision annotation), or kapp's labels on
// the HPA, hid every change made in Git to what it copies, and check exited 0 (probe 23 findings
// 1, 2, and 12's mutation part). The rules are written as the probe wrote them.
func TestMutationCheckSeesRulesAsKappMatchesThem(t *testing.T) {
	image := "spec.template.spec.containers[name=web].image"
	for _, tc := range []struct {
		name, rules, want string
	}{
		{"matcher on an annotation kapp's built-in rules copy", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing, new]
  paths: [[spec, template, spec, containers]]
  resourceMatchers:
  - hasAnnotationMatcher: {keys: [deployment.kubernetes.io/revision]}
`, image},
		{"ytt rule acting on what kapp's built-in rules copy", deploymentYTT(`#@ load("@ytt:overlay", "overlay")
#@ load("@ytt:data", "data")
#@ def has_rev(_, l, r):
#@   return "annotations" in l["metadata"] and "deployment.kubernetes.io/revision" in l["metadata"]["annotations"]
#@ end
#@overlay/match by=has_rev, expects="0+"
---
spec:
  template:
    spec:
      #@overlay/replace
      containers: #@ data.values.existing["spec"]["template"]["spec"]["containers"]
`), image},
		{"matcher on kapp's labels", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing, new]
  paths: [[spec]]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
      - notMatcher: {matcher: {emptyFieldMatcher: {path: [metadata, labels]}}}
`, "spec.minReplicas"},
	} {
		for _, original := range []bool{true, false} {
			rules := writeFile(t, "rules.yml", tc.rules)
			c, err := generator.Check(hpaWith(t, "nginx:1.25", original), []string{rules, classicRules})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(c.Hidden, func(h verdict.Hidden) bool { return h.Path == tc.want })
			if i < 0 || c.Hidden[i].At.File != rules || c.Hidden[i].At.Key != "rebaseRules[0]" {
				t.Errorf("%s (original %t): hidden %+v; want %s hidden by %s rebaseRules[0]", tc.name, original, c.Hidden, tc.want, rules)
			}
		}
	}
}

// A rule writing kapp.k14s.io/noop or kapp.k14s.io/exists, or an update strategy skip, onto the
// object kapp applies makes kapp apply nothing to the resource: every change made in Git to it is
// hidden, whether or not Git holds one now. The mutation check found nothing declared to change
// and check exited 0 (probe 23 finding 3); it is now a failing finding naming the rule.
func TestCheckARuleMakingKappApplyNothingFails(t *testing.T) {
	copyFromLive := func(key string) string {
		return `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  path: [metadata, annotations, ` + key + `]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`
	}
	noop := deploymentYTT(`#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
metadata:
  #@overlay/match missing_ok=True
  annotations:
    #@overlay/match missing_ok=True
    kapp.k14s.io/noop: ""
`)
	for _, tc := range []struct {
		name, rules, live, key, how string
	}{
		{"ytt rule writing noop", noop, "", "kapp.k14s.io/noop", "kapp reports noop and applies nothing"},
		{"exists copied from the live object", copyFromLive("kapp.k14s.io/exists"), `kapp.k14s.io/exists: ""`, "kapp.k14s.io/exists", "applies nothing to it"},
		{"skip copied from the live object", copyFromLive("kapp.k14s.io/update-strategy"), "kapp.k14s.io/update-strategy: skip", "kapp.k14s.io/update-strategy", "kapp reports an update and applies nothing"},
	} {
		in := hpaWith(t, "nginx:1.25", true) // no change made in Git
		if tc.live != "" {                   // the live Deployment's annotations are the first map under its metadata
			bs, _ := os.ReadFile(in.Live[0])
			if err := os.WriteFile(in.Live[0], []byte(strings.Replace(string(bs), "  annotations:\n", "  annotations:\n    "+tc.live+"\n", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rules := writeFile(t, "rules.yml", tc.rules)
		c, err := generator.Check(in, []string{rules, classicRules})
		if err != nil {
			t.Fatal(err)
		}
		fs := c.Findings(verdict.Gate{})
		i := slices.IndexFunc(fs, func(f verdict.Finding) bool {
			return f.Kind == verdict.KindHidden && f.Path == `metadata.annotations["`+tc.key+`"]` && f.File == rules
		})
		if i < 0 || !fs[i].Fails || !strings.Contains(fs[i].Evidence, rules+":4, document 1, rebaseRules[0]") || !strings.Contains(fs[i].Evidence, tc.how) {
			t.Errorf("%s: findings %+v; want a failing hidden finding at %s naming %s:4 rebaseRules[0] and saying %q", tc.name, fs, tc.key, rules, tc.how)
		}
	}
}

// The hidden finding of a change made in Git where the object kapp applies carries an annotation
// that makes kapp apply nothing says what kapp does (with an update strategy skip it reports an
// update: it said "kapp reports no update"), and where the annotation comes from: the manifest's
// document when the manifest declares it (it said "the manifest's, or the rules'").
func TestCheckSaysWhyKappAppliesNothing(t *testing.T) {
	copySkip := `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  path: [metadata, annotations, kapp.k14s.io/update-strategy]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`
	for _, tc := range []struct {
		name, desired, live, rules string
		want, not                  []string
	}{
		{"manifest noop", `kapp.k14s.io/noop: ""`, "", "", []string{`the annotation metadata.annotations["kapp.k14s.io/noop"] the manifest declares (`, ": document 1 (line 1))", "kapp reports noop and applies nothing"}, []string{"rules", "reports no update"}},
		{"manifest skip", "kapp.k14s.io/update-strategy: skip", "", "", []string{"the manifest declares (", "kapp reports an update and applies nothing"}, []string{"rules", "reports no update"}},
		{"skip copied from the live object", "", "kapp.k14s.io/update-strategy: skip", copySkip, []string{"written onto the object kapp applies by ", ":4, document 1, rebaseRules[0]", "kapp reports an update and applies nothing"}, []string{"manifest declares", "reports no update"}},
	} {
		in := hpaWith(t, "nginx:1.27", true) // the image changed in Git
		if tc.desired != "" {
			bs, _ := os.ReadFile(in.Desired[0])
			if err := os.WriteFile(in.Desired[0], []byte(strings.Replace(string(bs), "metadata:\n", "metadata:\n  annotations: {"+tc.desired+"}\n", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if tc.live != "" {
			bs, _ := os.ReadFile(in.Live[0])
			if err := os.WriteFile(in.Live[0], []byte(strings.Replace(string(bs), "  annotations:\n", "  annotations:\n    "+tc.live+"\n", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rules := []string{classicRules}
		if tc.rules != "" {
			rules = append(rules, writeFile(t, "rules.yml", tc.rules))
		}
		c, err := generator.Check(in, rules)
		if err != nil {
			t.Fatal(err)
		}
		var evidence string
		for _, f := range c.Findings(verdict.Gate{}) {
			if f.Kind == verdict.KindHidden && f.Path == "spec.template.spec.containers[name=web].image" {
				evidence = f.Evidence
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(evidence, w) {
				t.Errorf("%s: %q lacks %q", tc.name, evidence, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(evidence, n) {
				t.Errorf("%s: %q says %q", tc.name, evidence, n)
			}
		}
	}
}

// kapp writes a Config's additionalLabels through every ownership label rule
// (resources/labeled_resources.go Prepare): with one whose path leads into metadata.annotations,
// additionalLabels kapp.k14s.io/noop, kapp.k14s.io/exists or an update strategy skip land on
// every object kapp applies, which then applies nothing. With no change made in Git check exited
// 0 and lint said nothing, where a rebase rule writing the same annotation fails the gate (probe4
// finding 1).
func TestCheckAdditionalLabelsMakingKappApplyNothingFail(t *testing.T) {
	for _, tc := range []struct{ key, value, how string }{
		{"kapp.k14s.io/noop", `""`, "kapp reports noop and applies nothing"},
		{"kapp.k14s.io/exists", `""`, "applies nothing to it"},
		{"kapp.k14s.io/update-strategy", "skip", "kapp reports an update and applies nothing"},
	} {
		rules := writeFile(t, "labels.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
additionalLabels:
  `+tc.key+`: `+tc.value+`
ownershipLabelRules:
- path: [metadata, annotations]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
		c, err := generator.Check(hpaWith(t, "nginx:1.25", true), []string{rules, classicRules}) // no change made in Git
		if err != nil {
			t.Fatal(err)
		}
		fs := c.Findings(verdict.Gate{})
		i := slices.IndexFunc(fs, func(f verdict.Finding) bool {
			return f.Kind == verdict.KindHidden && f.Path == `metadata.annotations["`+tc.key+`"]` && f.File == rules
		})
		if i < 0 || !fs[i].Fails || !strings.Contains(fs[i].Evidence, rules+":6, document 1, ownershipLabelRules[0]") ||
			!strings.Contains(fs[i].Evidence, rules+":3, document 1, additionalLabels") || !strings.Contains(fs[i].Evidence, tc.how) {
			t.Errorf("%s: findings %+v; want a failing hidden finding at %s naming %s ownershipLabelRules[0] and additionalLabels and saying %q", tc.key, fs, tc.key, rules, tc.how)
		}
		j := slices.IndexFunc(c.Lint, func(f lint.Finding) bool {
			return f.File == rules && f.Line == 4 && f.Severity == lint.Warning && strings.Contains(f.Message, tc.key) && strings.Contains(f.Message, "ownershipLabelRules[0]")
		})
		if j < 0 {
			t.Errorf("%s: lint %+v; want a warning at %s:4 naming ownershipLabelRules[0]", tc.key, c.Lint, rules)
		}
	}
}

// kapp reads every Config among the files it deploys (cmd/app/deploy.go newResources) and prepares
// each resource with all of their ownership label rules and additionalLabels: a rules file's
// additionalLabels are on every object kapp applies. check prepared the resources with the
// package's Configs alone: the label kapp wrote on deploy, in the live objects and in kapp's
// last-applied copy, was "a change made in Git" that the rules file's additionalLabels "hide";
// and lint's matchers, which see the resources as kapp prepared them, missed the label (probe4
// finding 1 (c)).
func TestCheckPreparesWithTheRuleFilesConfigs(t *testing.T) {
	addTeam := func(obj map[string]any, paths ...[]string) {
		for _, p := range paths {
			if err := unstructured.SetNestedField(obj, "web", append(p, "team")...); err != nil {
				t.Fatal(err)
			}
		}
	}
	live := editedFixture(t, filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml"), func(u *unstructured.Unstructured) bool {
		paths := [][]string{{"metadata", "labels"}}
		if u.GetKind() == "Deployment" {
			paths = append(paths, []string{"spec", "template", "metadata", "labels"})
		}
		addTeam(u.Object, paths...)
		var orig map[string]any
		if err := json.Unmarshal([]byte(u.GetAnnotations()["kapp.k14s.io/original"]), &orig); err != nil {
			t.Fatal(err)
		}
		addTeam(orig, paths...)
		bs, _ := json.Marshal(orig)
		ann := u.GetAnnotations()
		ann["kapp.k14s.io/original"] = string(bs)
		u.SetAnnotations(ann)
		return true
	})
	rules := writeFile(t, "team.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
additionalLabels:
  team: web
rebaseRules:
- type: copy
  sources: [existing, new]
  path: [spec, replicas]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
      - notMatcher: {matcher: {emptyFieldMatcher: {path: [metadata, labels, team]}}}
`)
	in := generator.Inputs{Desired: []string{filepath.Join("..", "fixtures", "hpa-replicas", "desired.yaml")}, Live: []string{live}, Namespace: "hpa-replicas"}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Findings(verdict.Gate{}) {
		if strings.Contains(f.Path, "team") {
			t.Errorf("the label kapp writes from the rules file's additionalLabels: %+v", f)
		}
	}
	for _, f := range c.Lint {
		if strings.Contains(f.Message, "matches none") {
			t.Errorf("lint: %+v", f)
		}
	}
}
