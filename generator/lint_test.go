package generator_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// TestGeneratedConfigIsClean: what rebasegen generate writes lints without a finding.
func TestGeneratedConfigIsClean(t *testing.T) {
	in := fixture("hpa-replicas")
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, g.Rules, emit.Header{Version: "test", Options: emit.Options{Desired: in.Desired}}); err != nil {
		t.Fatal(err)
	}
	got, _, err := generator.Lint(in, []string{writeFile(t, "rebase-rules.yml", buf.String())})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Errorf("generated Config has findings: %+v", got)
	}
}

// TestLintFlagsARuleHidingDeclaredFields: with live objects, lint runs the mutation check on each
// rule letting the cluster win, and a rule hiding a declared field only the applier owns is an
// error at the rule's line; a rule over a controller's field (an autoscaler's spec.replicas) is not.
func TestLintFlagsARuleHidingDeclaredFields(t *testing.T) {
	file := filepath.Join("..", "fixtures", "lint", "crd-spec-copy", "rules.yml")
	in := fixture("crd-defaults")
	got, _, err := generator.Lint(in, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	var errs []lint.Finding
	for _, f := range got {
		if f.Severity == lint.Error {
			errs = append(errs, f)
		}
	}
	if len(errs) != 1 || errs[0].Line != 6 || errs[0].Rule != 0 ||
		!strings.Contains(errs[0].Message, "hides a change made in Git to 6 declared fields only the manifest's applier owns") ||
		!strings.Contains(errs[0].Message, "crd-defaults.rebasegen.dev/Backup crd-defaults/nightly spec.storage.bucket") ||
		!strings.HasSuffix(errs[0].Message, "crd-defaults.rebasegen.dev/Backup crd-defaults/nightly spec") { // the whole spec removed, put back (issue 23)
		t.Errorf("want one error at line 6 naming spec.storage.bucket, got %+v", got)
	}

	replicas := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, replicas]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}
`)
	in = fixture("hpa-replicas")
	if got, _, err = generator.Lint(in, []string{replicas}); err != nil {
		t.Fatal(err)
	}
	if lint.HasErrors(got) {
		t.Errorf("an autoscaler's spec.replicas is not the applier's: %+v", got)
	}
}

// kapp matches a rule against the resource it prepared: its ownership labels are in
// metadata.labels of every resource it deploys, so a matcher on them matches the manifest's HPA,
// which has no labels. lint says which matchers match nothing on those resources, not on the
// manifest as written (probe23 finding 12: "andMatcher matches none of the desired objects" for a
// rule kapp applies).
func TestLintMatchesTheResourcesKappPrepared(t *testing.T) {
	rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing, new]
  path: [spec, minReplicas]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
      - notMatcher: {matcher: {emptyFieldMatcher: {path: [metadata, labels]}}}
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
      - emptyFieldMatcher: {path: [metadata, labels]}
`)
	got, _, err := generator.Lint(fixture("hpa-replicas"), []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	var none []string
	for _, f := range got {
		if strings.Contains(f.Message, "matches none of the desired objects") {
			none = append(none, fmt.Sprintf("line %d: %s", f.Line, f.Message))
		}
	}
	// the first matcher matches the HPA kapp labelled, the second (labels empty) none
	if len(none) != 1 || !strings.HasPrefix(none[0], "line 12: ") {
		t.Errorf("want the second andMatcher (line 12) alone to match none, got %q", none)
	}
}
