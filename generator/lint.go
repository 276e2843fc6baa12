package generator

import (
	"fmt"
	"strings"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// Lint lints the kapp Configs under rules against the inputs when any are given: desired
// objects for matchers that match nothing, live objects for the narrower rules generate writes.
func Lint(in Inputs, rules []string) ([]lint.Finding, error) {
	if err := stdinOnce(in, rules); err != nil {
		return nil, err
	}
	if len(in.Desired) == 0 && len(in.Live) == 0 && in.Package.Empty() {
		return lint.Check(lint.Options{Rules: rules, Stdin: in.Stdin})
	}
	a, err := Analyze(in)
	if err != nil {
		return nil, err
	}
	return a.Lint(rules)
}

// Lint lints the kapp Configs under rules against the analysed objects.
func (a *Analysis) Lint(rules []string) ([]lint.Finding, error) {
	opts := lint.Options{Rules: rules, Stdin: a.Inputs.Stdin, Set: a.Set, Desired: len(a.Inputs.Desired) > 0 || !a.Inputs.Package.Empty(), Ruleset: a.Ruleset}
	if len(a.Inputs.Live) > 0 {
		g, err := a.Synthesize(synth.Options{})
		if err != nil {
			return nil, err
		}
		opts.Generated = &g.Result
	}
	return lint.Check(opts)
}

// stdinOnce refuses "-" (stdin) given to more than one input or rule flag: the first would read
// it all (-d - -l - made live empty).
func stdinOnce(in Inputs, rules []string) error {
	var readers []string
	for _, f := range []struct {
		flag  string
		paths []string
	}{{"--desired", in.Desired}, {"--live", in.Live}, {"--crd", in.CRDs}, {"--rules", rules}} {
		for _, p := range f.paths {
			if p == "-" {
				readers = append(readers, f.flag+" -")
			}
		}
	}
	if len(readers) > 1 {
		return fmt.Errorf("%s: - (stdin) can be read only once", strings.Join(readers, ", "))
	}
	return nil
}
