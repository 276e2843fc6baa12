package generator_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/synth"
)

var hpaInputs = func() generator.Inputs {
	in := fixture("hpa-replicas")
	in.Package = loadValues("ns=hpa-replicas")
	return in
}()

func rulesFile(t *testing.T, format emit.Format, edit func(string) string) string {
	t.Helper()
	g, err := generator.Generate(hpaInputs, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	h := emit.Header{Version: "test", Options: emit.Options{Format: format, NamespaceValues: []string{"ns"}, PackageInstall: "web", Namespace: "hpa-replicas"}}
	if err := emit.WriteRules(&b, g.Rules, h); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "rules.yml", edit(b.String()))
}

func same(s string) string { return s }

func TestCheckGeneratedRulesAreCleanInEveryFormat(t *testing.T) {
	for _, format := range []emit.Format{emit.FormatConfig, emit.FormatYTT, emit.FormatSecret} {
		c, err := generator.Check(hpaInputs, []string{rulesFile(t, format, same)})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(c.Residual)+len(c.Stale)+len(c.Drift)+len(c.Lint) != 0 || c.LintSkipped != nil {
			t.Errorf("%s: want clean, got residual %v stale %v drift %v lint %v %v", format, c.Residual, c.Stale, c.Drift, c.Lint, c.LintSkipped)
		}
	}
}

func TestCheckReportsResidualGhostsOfAHandWrittenRule(t *testing.T) {
	c, err := generator.Check(hpaInputs, []string{classicRules})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range c.Residual {
		if r.Finding.Path != nil {
			paths = append(paths, r.Finding.Path.String())
		}
	}
	got := strings.Join(paths, " ")
	if strings.Contains(got, "spec.replicas") || !strings.Contains(got, "spec.template.spec.dnsPolicy") {
		t.Errorf("want the defaults residual and replicas handled, got %s", got)
	}
	if len(c.Stale) != 0 {
		t.Errorf("a hand-written file is never stale: %v", c.Stale)
	}
}

func TestCheckReportsAStaleGeneratedFile(t *testing.T) {
	f := rulesFile(t, emit.FormatConfig, func(s string) string {
		return strings.Replace(s, "  - [spec, template, spec, containers, {allIndexes: true}, ports, {allIndexes: true}, protocol]\n", "", 1)
	})
	c, err := generator.Check(hpaInputs, []string{f})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Stale) != 1 || !strings.Contains(c.Stale[0].Diff, "+  - [spec, template, spec, containers, {allIndexes: true}, ports, {allIndexes: true}, protocol]") {
		t.Fatalf("want one stale file whose diff adds the missing path, got %+v", c.Stale)
	}
	if len(c.Residual) == 0 {
		t.Errorf("the dropped path is also a residual ghost diff")
	}
}

// A hand-written rule that copies a custom resource's whole spec from the cluster hides every
// change made in Git under it: the mutation check generate runs on its own rules fails check.
func TestCheckFailsOnARuleHidingDeclaredFields(t *testing.T) {
	f := writeFile(t, "hand.yml", hidingConfig)
	in := fixture("crd-defaults")
	c, err := generator.Check(in, []string{f})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range c.Hidden {
		got = append(got, h.Resource.String()+" "+h.Path)
		if !strings.Contains(h.Rule, f+":4, document 1") || !strings.Contains(h.Rule, "rebaseRules[0] (copy [spec] from [existing, new])") {
			t.Errorf("the rule is not named: %q", h.Rule)
		}
	}
	// every scalar the manifest declares under spec (desired.yaml), none that the server
	// defaulted, and the whole spec removed: the copy matched by kind alone puts the live spec
	// back (issue 23)
	want := []string{"spec.storage.bucket", "spec.targets[0].name", "spec.targets[1].name", "spec.targets[1].port", "spec.targets[1].tls.mode", "spec"}
	if len(got) != len(want) {
		t.Fatalf("hidden: got %q, want %q", got, want)
	}
	for i, p := range want {
		if got[i] != "crd-defaults.rebasegen.dev/Backup crd-defaults/nightly "+p {
			t.Errorf("hidden[%d] = %q, want %s", i, got[i], p)
		}
	}

	// The rules generate writes for the same objects hide nothing.
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := emit.WriteRules(&b, g.Rules, emit.Header{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(f, b.Bytes(), 0o644)
	if c, err = generator.Check(in, []string{f}); err != nil {
		t.Fatal(err)
	}
	if len(c.Hidden) != 0 || len(c.Residual) != 0 {
		t.Errorf("generated rules: hidden %v, residual %v", c.Hidden, c.Residual)
	}
}

// A rule letting the cluster's replica count win where an autoscaler owns it hides nothing the
// applier owns: spec.replicas is classified controller-owned, with managedFields as evidence.
func TestCheckAcceptsARuleOverAControllersField(t *testing.T) {
	classic, err := os.ReadFile(classicRules)
	if err != nil {
		t.Fatal(err)
	}
	f := writeFile(t, "hand.yml", string(classic)+`- path: [spec, template, spec, containers, {allIndexes: true}, image]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	c, err := generator.Check(hpaInputs, []string{f})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hidden) != 1 || c.Hidden[0].Path != "spec.template.spec.containers[name=web].image" || !strings.Contains(c.Hidden[0].Rule, "rebaseRules[1]") {
		t.Errorf("want only the image hidden, by rule 1: %+v", c.Hidden)
	}
}

// yttRuleConfig is a kapp Config whose one ytt rebase rule, for the crd-defaults fixture's Backup,
// applies overlay.
func yttRuleConfig(overlay string) string {
	indented := "        " + strings.ReplaceAll(strings.TrimSpace(overlay), "\n", "\n        ")
	return `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- ytt:
    overlayContractV1:
      overlay.yml: |
` + indented + `
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: crd-defaults.rebasegen.dev/v1alpha1, kind: Backup}
`
}

// A ytt rule taking spec.storage.bucket from the cluster hides a change made in Git to it, which
// only the applier owns (desired.yaml declares it): check reports it like a copy rule's, and
// lint --live flags the rule. A ytt rule filling spec.retention from the cluster only where the
// manifest lacks it (it does: the CRD's schema defaults it) hides nothing, nor does one that
// fails on a changed bucket (kapp's deploy would stop on that change); the latter decides on the
// text of the manifest's bucket, which only the one the check's random values miss lets through,
// so it is not judged (issue 23, probe12 P12-7): lint --live says so at the rule.
func TestCheckFailsOnAYTTRuleHidingADeclaredField(t *testing.T) {
	const head = `#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
spec:
`
	for _, tc := range []struct {
		name, overlay string
		hidden        string
		unjudged      bool // lint --live: the rule is not judged, reading the manifest's bucket
	}{
		{"bucket from the cluster", head + `  storage:
    bucket: #@ data.values.existing["spec"]["storage"]["bucket"]
`, "[crd-defaults.rebasegen.dev/Backup crd-defaults/nightly spec.storage.bucket]", false},
		{"retention where the manifest lacks it", head + `  #@ if "retention" not in data.values.new["spec"]:
  #@overlay/match missing_ok=True
  retention: #@ data.values.existing["spec"]["retention"]
  #@ end
`, "[]", false},
		// kapp's deploy fails on a changed bucket rather than hiding it: no candidate, no error
		{"failing on a changed bucket", `#@ load("@ytt:assert", "assert")
` + head + `  #@ if data.values.new["spec"]["storage"]["bucket"] != "backups":
  #@   assert.fail("bucket changed")
  #@ end
  storage: {}
`, "[]", true},
	} {
		f := writeFile(t, "ytt-rule.yml", yttRuleConfig(tc.overlay))
		in := fixture("crd-defaults")
		c, err := generator.Check(in, []string{f})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, h := range c.Hidden {
			got = append(got, h.Resource.String()+" "+h.Path)
			if !strings.Contains(h.Rule, "rebaseRules[0] (ytt overlay)") {
				t.Errorf("%s: the rule is not named: %q", tc.name, h.Rule)
			}
		}
		if fmt.Sprint(got) != tc.hidden {
			t.Errorf("%s: check: hidden %v, want %s", tc.name, got, tc.hidden)
		}
		findings, _, err := generator.Lint(in, []string{f})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		flagged, unjudged := false, false
		for _, l := range findings {
			at := l.Severity == lint.Error && l.Line == 4 && strings.Contains(l.Message, "spec.storage.bucket")
			flagged = flagged || at && strings.Contains(l.Message, "the rule hides a change")
			unjudged = unjudged || at && strings.Contains(l.Message, "not judged")
		}
		if flagged != (tc.hidden != "[]") || unjudged != tc.unjudged || len(findings) > 1 {
			t.Errorf("%s: lint --live: %+v", tc.name, findings)
		}
	}
}

// A checkout with CRLF line endings (git's autocrlf) changes nothing kapp or ytt read: the
// generated file is neither stale nor edited, in every format.
func TestCheckGeneratedRulesWithCRLFAreNotStale(t *testing.T) {
	for _, format := range []emit.Format{emit.FormatConfig, emit.FormatYTT, emit.FormatSecret} {
		f := rulesFile(t, format, func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") })
		c, err := generator.Check(hpaInputs, []string{f})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(c.Stale) != 0 {
			t.Errorf("%s: CRLF called stale: %+v", format, c.Stale)
		}
	}
}
