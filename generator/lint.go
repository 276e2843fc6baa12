package generator

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Lint lints the kapp Configs under rules against the inputs when any are given: desired
// objects for matchers that match nothing, live objects for the narrower rules generate writes.
// It returns the namespace inferred for desired objects without one (see pair.Set), if any.
func Lint(in Inputs, rules []string) ([]lint.Finding, string, error) {
	if err := stdinOnce(in, rules); err != nil {
		return nil, "", err
	}
	in = in.withReader()
	if len(in.Desired) == 0 && len(in.Live) == 0 && in.Package.Empty() {
		plain, rendered, err := lintSources(in.Reader, rules, in.Package)
		if err != nil {
			return nil, "", err
		}
		findings, err := lint.Check(lint.Options{Rules: plain, Rendered: rendered, Reader: in.Reader})
		return findings, "", err
	}
	a, err := Analyze(in)
	if err != nil {
		return nil, "", err
	}
	findings, err := a.Lint(rules)
	return findings, a.Set.InferredNamespace, err
}

// Lint lints the kapp Configs under rules against the analysed objects, read as check reads them
// (ytt templates rendered with the package's data values); with live objects, each rule letting
// the cluster win gets the mutation check too.
func (a *Analysis) Lint(rules []string) ([]lint.Finding, error) {
	plain, rendered, err := lintSources(a.Inputs.Reader, rules, a.Inputs.Package)
	if err != nil {
		return nil, err
	}
	return a.lint(plain, rendered, true)
}

// lint lints the plain rule paths and the rendered ones (lintSources); check runs the mutation
// check on all the rules together and skips it here.
func (a *Analysis) lint(rules []string, rendered []lint.Rendered, mutations bool) ([]lint.Finding, error) {
	opts := lint.Options{Rules: rules, Rendered: rendered, Reader: a.Inputs.Reader, Set: a.Set, Desired: len(a.Inputs.Desired) > 0 || !a.Inputs.Package.Empty(), Ruleset: a.Ruleset}
	if len(a.Inputs.Live) > 0 {
		g, err := a.Synthesize(synth.Options{})
		if err != nil {
			return nil, err
		}
		opts.Generated = &g.Result
		if mutations {
			opts.Hides = a.hides
		}
	}
	return lint.Check(opts)
}

// hides runs the mutation check on one rule of a Config's key (additionalLabels: the map;
// rebaseRules: a rule, or the list of the rules kapp applies as one unit), with the package's own
// rules: the declared fields it hides, "Kind namespace/name path".
func (a *Analysis) hides(key string, rule any) ([]string, error) {
	if _, unit := rule.([]any); key != "additionalLabels" && !(key == "rebaseRules" && unit) {
		rule = []any{rule}
	}
	cfg := load.Object{Unstructured: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kapp.k14s.io/v1alpha1", "kind": "Config", key: rule}}}
	rules := verdict.Rules([]load.Object{cfg}, a.Inputs.Reader)
	if len(rules) == 0 {
		return nil, nil
	}
	hidden, err := verdict.HiddenBy(verdict.Input{Report: a.Report, Configs: append(slices.Clone(a.Set.Configs), cfg), Rules: rules, Stage: a.Inputs.Progress.stage})
	var out []string
	for _, h := range hidden {
		out = append(out, h.Resource.String()+" "+h.Path)
	}
	return out, err
}

// stdinOnce refuses "-" (stdin) given to more than one flag: one stdin cannot be two inputs
// (-d - -l - made live empty), and empty stdin, whichever flag reads it: a pipeline whose first
// command failed or wrote nothing, which read as an empty ruleset, no rules or no values would
// pass unnoticed.
func stdinOnce(in Inputs, rules []string) error {
	var readers []string
	for _, f := range []struct {
		flag  string
		paths []string
	}{{"--desired", in.Desired}, {"--live", in.Live}, {"--crd", in.CRDs}, {"--ruleset", in.Rulesets}, {"--package", in.Package.Dirs},
		{"--values", in.Package.ValuesFiles}, {"--package-cr", []string{in.Package.CR}}, {"--rules", rules}} {
		for _, p := range f.paths {
			if p == "-" {
				readers = append(readers, f.flag+" -")
			}
		}
	}
	switch {
	case len(readers) > 1:
		return fmt.Errorf("%s: - (stdin) can be read only once", strings.Join(readers, ", "))
	case len(readers) == 1:
		data, err := in.Reader.ReadFile("-") // read once: every later read gets the same data
		if err != nil {
			return fmt.Errorf("%s: %w", readers[0], err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return fmt.Errorf("%s (stdin): empty input", readers[0])
		}
	}
	return nil
}
