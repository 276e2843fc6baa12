package generator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
)

// hiddenBy lists check's hidden findings as "resource path <- rule".
func hiddenBy(t *testing.T, in generator.Inputs, rules string) []string {
	t.Helper()
	c, err := generator.Check(in, []string{writeFile(t, "rules.yml", rules)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range c.Hidden {
		rule := h.At.Key + h.Rule[strings.Index(h.Rule, " ("):] // the key, then what the rule does
		got = append(got, h.Resource.String()+" "+h.Path+" <- "+rule)
	}
	return got
}

// Every key of kapp's Config that makes kapp ignore or rewrite a field is mutation-checked, not
// only rebaseRules: a diffAgainstExistingFieldExclusionRules path is removed from both sides
// before kapp diffs (hiding spec.storage.bucket, which the manifest declares), a remove rebase
// rule drops the declared value, and additionalLabels overwrite the declared label kapp writes
// through its ownership label rules (metadata and pod template labels, not the selector: label
// scoping writes only the app label). diffAgainstLastAppliedFieldExclusionRules only decide
// whether kapp's last-applied copy is still valid: kapp's engine shows the change, nothing hidden.
func TestCheckMutationChecksEveryConfigKeyThatHidesAField(t *testing.T) {
	got := hiddenBy(t, fixture("crd-defaults"), `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
diffAgainstExistingFieldExclusionRules:
- path: [spec, storage]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: crd-defaults.rebasegen.dev/v1alpha1, kind: Backup}
diffAgainstLastAppliedFieldExclusionRules:
- path: [spec, targets]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: crd-defaults.rebasegen.dev/v1alpha1, kind: Backup}
rebaseRules:
- path: [spec, targets, {index: 1}, port]
  type: remove
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: crd-defaults.rebasegen.dev/v1alpha1, kind: Backup}
`)
	want := "[crd-defaults.rebasegen.dev/Backup crd-defaults/nightly spec.targets[1].port <- rebaseRules[0] (remove [spec, targets, {index: 1}, port])" +
		" crd-defaults.rebasegen.dev/Backup crd-defaults/nightly spec.storage.bucket <- diffAgainstExistingFieldExclusionRules[0] (removed from both sides before diffing: [spec, storage])]"
	if fmt.Sprint(got) != want {
		t.Errorf("hidden:\n got %v\nwant %s", got, want)
	}

	got = hiddenBy(t, hpaInputs, `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
additionalLabels:
  app.kubernetes.io/name: web
`)
	want = `[apps/Deployment hpa-replicas/web metadata.labels["app.kubernetes.io/name"] <- additionalLabels (kapp writes label app.kubernetes.io/name)` +
		` apps/Deployment hpa-replicas/web spec.template.metadata.labels["app.kubernetes.io/name"] <- additionalLabels (kapp writes label app.kubernetes.io/name)]`
	if fmt.Sprint(got) != want {
		t.Errorf("hidden:\n got %v\nwant %s", got, want)
	}
}

// lint --live runs the same mutation check on each rule of those keys, alone.
func TestLintMutationChecksExclusionRules(t *testing.T) {
	f := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
diffAgainstExistingFieldExclusionRules:
- path: [spec, storage]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: crd-defaults.rebasegen.dev/v1alpha1, kind: Backup}
`)
	findings, _, err := generator.Lint(fixture("crd-defaults"), []string{f})
	if err != nil {
		t.Fatal(err)
	}
	// and a warning on its resourceMatchers, which kapp never reads (TestExclusionRuleHidesInEveryResource)
	if len(findings) != 2 || findings[0].Severity != lint.Error || findings[0].Line != 4 ||
		!strings.Contains(findings[0].Message, "diffAgainstExistingFieldExclusionRules[0]: ") || !strings.Contains(findings[0].Message, "spec.storage.bucket") ||
		findings[1].Severity != lint.Warning || findings[1].Line != 5 || !strings.Contains(findings[1].Message, "never reads an exclusion rule's resourceMatchers") {
		t.Errorf("want one error on line 4 naming the rule and spec.storage.bucket, and a warning on line 5, got %+v", findings)
	}
}

// The mutated values are unpredictable: a ytt rule that takes the cluster's bucket unless the
// manifest's value ends in the suffix the mutation check once appended passes every change the
// check used to make, and hides every change made in Git; so does one keyed to the original
// value being kept as a prefix; nor do they look like no real value: one that takes the cluster's
// bucket whenever the manifest's looks like a bucket name (lower-case letters) passed every
// random text the check drew (issue 23).
func TestCheckMutationValuesAreUnpredictable(t *testing.T) {
	for _, passes := range []string{`b.endswith("-rebasegen-mutation")`, `b.startswith("backups") and b != "backups"`, `not (b.isalpha() and b.islower())`} {
		got := hiddenBy(t, fixture("crd-defaults"), yttRuleConfig(`#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
spec:
  storage:
    #@ b = data.values.new["spec"]["storage"]["bucket"]
    bucket: #@ b if `+passes+` else data.values.existing["spec"]["storage"]["bucket"]
`))
		if fmt.Sprint(got) != "[crd-defaults.rebasegen.dev/Backup crd-defaults/nightly spec.storage.bucket <- rebaseRules[0] (ytt overlay)]" {
			t.Errorf("%s: hidden: %v", passes, got)
		}
	}
}

// lint names list items one way, by merge key as explain does, in the hidden fields and in the
// suggestion alike, and never ends a list with "(and 1 more)": one more is named.
func TestLintNamesItemsByMergeKeyAndElidesOnlyTwoOrMore(t *testing.T) {
	f := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, template, spec]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	findings, _, err := generator.Lint(hpaInputs, []string{f})
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 1 {
		t.Fatalf("want one finding, got %+v", findings)
	}
	msg, sug := findings[0].Message, findings[0].Suggestion
	if !strings.Contains(msg, "spec.template.spec.containers[name=web].ports[containerPort=80,protocol=TCP].containerPort") || strings.Contains(msg+sug, "[0]") {
		t.Errorf("want items by merge key only:\n%s\n%s", msg, sug)
	}
	// 9 paths, 8 shown at most: the ninth is named
	if strings.Contains(sug, "(and 1 more)") || !strings.Contains(sug, "spec.template.spec.terminationGracePeriodSeconds") {
		t.Errorf("suggestion: %s", sug)
	}
}
