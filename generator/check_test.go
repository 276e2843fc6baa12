package generator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
)

var hpaInputs = generator.Inputs{
	Desired:   []string{"../fixtures/hpa-replicas/desired.yaml"},
	Live:      []string{"../fixtures/hpa-replicas/live.yaml"},
	Namespace: "hpa-replicas",
	Package:   loadValues("ns=hpa-replicas"),
}

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
	f := filepath.Join(t.TempDir(), "rules.yml")
	os.WriteFile(f, []byte(edit(b.String())), 0o644)
	return f
}

func same(s string) string { return s }

func TestCheckGeneratedRulesAreCleanInEveryFormat(t *testing.T) {
	for _, format := range []emit.Format{emit.FormatConfig, emit.FormatYTT, emit.FormatSecret} {
		c, err := generator.Check(hpaInputs, []string{rulesFile(t, format, same)})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(c.Residual)+len(c.Stale)+len(c.Drift) != 0 {
			t.Errorf("%s: want clean, got residual %v stale %v drift %v", format, c.Residual, c.Stale, c.Drift)
		}
	}
}

func TestCheckReportsResidualGhostsOfAHandWrittenRule(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hand.yml")
	os.WriteFile(f, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, replicas]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`), 0o644)
	c, err := generator.Check(hpaInputs, []string{f})
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
