package generator

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/rulefiles"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Lint lints the kapp Configs under rules against the inputs when any are given: desired
// objects for matchers that match nothing, live objects for the narrower rules generate writes.
func Lint(in Inputs, rules []string) ([]lint.Finding, LintNotes, error) {
	if err := stdinOnce(in, rules); err != nil {
		return nil, LintNotes{}, err
	}
	in = in.withReader()
	if len(in.Desired) == 0 && len(in.Live) == 0 && in.Package.Empty() {
		// no objects to judge with the server's defaults; a malformed version is still an error
		if _, err := in.Reader.ReadServerVersion(in.ServerVersion, nil); err != nil {
			return nil, LintNotes{}, err
		}
		files, err := rulefiles.Read(in.Reader, rules, in.Package, func(string) bool { return false })
		if err != nil {
			return nil, LintNotes{}, err
		}
		findings, err := lint.Check(lint.Options{Rules: files.Plain, Rendered: files.Rendered, Reader: in.Reader})
		return findings, LintNotes{}, err
	}
	a, err := Analyze(in)
	if err != nil {
		return nil, LintNotes{}, err
	}
	findings, err := a.Lint(rules)
	return findings, LintNotes{InferredNamespace: a.Set.InferredNamespace, VersionWarning: a.Set.VersionWarning}, err
}

// LintNotes are what lint says besides its findings (pair.Set's): the namespace inferred for
// desired objects without one, if any, and that the server's minor version has no defaults data.
type LintNotes struct {
	InferredNamespace string
	VersionWarning    string
}

// Lint lints the kapp Configs under rules against the analysed objects, read as check reads them
// (ytt templates rendered with the package's data values); with live objects, each rule hiding a
// change made in Git as check judges it (the verdict stage, with every rule in force) is an error.
func (a *Analysis) Lint(rules []string) ([]lint.Finding, error) {
	files, err := rulefiles.Read(a.Inputs.Reader, rules, a.Inputs.Package, func(p string) bool { return !a.Inputs.readAsDesired(p) })
	if err != nil {
		return nil, err
	}
	var hidden []lint.Hidden
	if len(a.Inputs.Live) > 0 {
		configs := slices.Concat(a.Set.InForce(), files.Configs)
		v, err := verdict.Judge(verdict.Input{Report: a.Report, Set: a.Set, Configs: configs, Rules: files.Rules(configs, a.Inputs.Reader), Stage: a.Inputs.Progress.stage})
		if err != nil {
			return nil, err
		}
		hidden = verdict.LintHidden(v.Hidden)
	}
	return a.lint(files, hidden)
}

// lint lints the rule files as read, with what the verdict found hidden (none: check reports it
// itself).
func (a *Analysis) lint(files rulefiles.Files, hidden []lint.Hidden) ([]lint.Finding, error) {
	opts := lint.Options{Rules: files.Plain, Rendered: files.Rendered, Reader: a.Inputs.Reader, Set: a.Set, Desired: len(a.Inputs.Desired) > 0 || !a.Inputs.Package.Empty(), Ruleset: a.Ruleset, Hidden: hidden}
	if len(a.Inputs.Live) > 0 {
		g, err := a.Synthesize(synth.Options{})
		if err != nil {
			return nil, err
		}
		opts.Generated = &g.Result
	}
	return lint.Check(opts)
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
