package generator

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/rulefiles"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Lint lints the kapp Configs under rules against the inputs when any are given: desired
// objects for matchers that match nothing, live objects for the narrower rules generate writes.
func Lint(in Inputs, rules []string) ([]lint.Finding, LintNotes, error) {
	if err := in.stdinOnce(rules); err != nil {
		return nil, LintNotes{}, err
	}
	in = in.withReader()
	in.RuleFiles = rules
	if len(in.Desired) == 0 && len(in.Live) == 0 && in.Package.Empty() {
		// no objects to judge with the server's defaults; a malformed version is still an error
		if _, err := in.Reader.ReadServerVersion(in.ServerVersion, nil); err != nil {
			return nil, LintNotes{}, err
		}
		files, err := rulefiles.Read(in.Reader, rules, in.Package, func(string) bool { return false })
		if err == nil {
			err = files.NoRules
		}
		if err != nil {
			return nil, LintNotes{}, err
		}
		findings, err := lint.Check(lint.Options{Rules: files.Plain, Rendered: files.Rendered, Reader: in.Reader})
		return findings, LintNotes{}, err
	}
	files, err := readRuleFiles(in, rules)
	if err != nil {
		return nil, LintNotes{}, err
	}
	deployed := func(*pair.Set) []load.Object { return files.Configs }
	a, err := analyze(in, deployed) // prepared with the rule files' Configs, as kapp prepares them
	installNs := ""
	if ns, ok := files.InstallNamespace(); ok && err == nil && a.Set.NamespaceDefaulted {
		// the rules Secret tells the install namespace, in which generate named the objects:
		// judged in default, each name "matched none of the desired objects" (newcomer13 N13-4)
		in.Namespace, installNs = ns, ns
		a, err = analyze(in, deployed)
	}
	if f := refusedRules(err, in, files); f != nil {
		return f, LintNotes{}, nil
	}
	if err == nil {
		// the rules given as the manifests: every matcher would match "none of the desired
		// objects" (newcomer walkthrough 10, N10-7), refused as explain, check and generate do
		err = verdict.RulesOnly(a.Set)
	}
	if err == nil {
		err = files.NoRules
	}
	if err != nil {
		return nil, LintNotes{}, err
	}
	findings, err := a.lintFiles(files)
	return findings, LintNotes{InferredNamespace: a.Set.InferredNamespace, InstallNamespace: installNs, NamespaceDefaulted: a.Set.NamespaceDefaulted, NamespaceUnused: a.Set.NamespaceUnused, VersionWarning: a.Set.VersionWarning}, err
}

// refusedRules are lint's findings on the rule files alone where kapp refuses one of their
// Configs (err, analysing the inputs with them): kapp's error names only the document, lint each
// rule it cannot read and its line, and every other rule's findings (newcomer6 N6-7). nil when
// err is no such refusal, or lint finds no error to show for it.
func refusedRules(err error, in Inputs, files rulefiles.Files) []lint.Finding {
	var refused *kappcover.Refused
	if !errors.As(err, &refused) {
		return nil
	}
	return lintErrors(in, files)
}

// lintErrors are lint's findings on the rule files alone, nil where none is an error.
func lintErrors(in Inputs, files rulefiles.Files) []lint.Finding {
	findings, err := lint.Check(lint.Options{Rules: files.Plain, Rendered: files.Rendered, Reader: in.Reader})
	if err != nil || !slices.ContainsFunc(findings, func(f lint.Finding) bool { return f.Severity == lint.Error }) {
		return nil
	}
	return findings
}

// refusedRulesError is refusedRules for check, whose input error names each rule lint cannot
// accept with its line.
func refusedRulesError(err error, in Inputs, files rulefiles.Files) error {
	findings := refusedRules(err, in, files)
	if findings == nil {
		return err
	}
	return fmt.Errorf("%w; %s", err, lintErrorList(findings))
}

// lintedError is err, kapp failing on the rule files while judging them (a panic names no rule),
// with the errors lint finds in them, each naming its rule and line.
func lintedError(err error, in Inputs, files rulefiles.Files) error {
	findings := lintErrors(in, files)
	if findings == nil {
		return err
	}
	return fmt.Errorf("%w; %s", err, lintErrorList(findings))
}

// lintErrorList is "lint finds N errors: FILE:LINE: rebaseRules[i]: message (suggestion: ...); ...".
func lintErrorList(findings []lint.Finding) string {
	var msgs []string
	for _, f := range findings {
		if f.Severity != lint.Error {
			continue
		}
		m := lint.FileLine(f.File, f.Line) + ": "
		if f.Rule >= 0 {
			m += fmt.Sprintf("rebaseRules[%d]: ", f.Rule)
		}
		m += f.Message
		if f.Suggestion != "" {
			m += " (suggestion: " + f.Suggestion + ")"
		}
		msgs = append(msgs, escape.Text(m))
	}
	return fmt.Sprintf("lint finds %s: %s", words.Count(len(msgs), "error"), strings.Join(msgs, "; "))
}

// LintNotes are what lint says besides its findings (pair.Set's): the namespace inferred for
// desired objects without one, if any, and that the server's minor version has no defaults data.
type LintNotes struct {
	InferredNamespace string
	// InstallNamespace: no -n and no live object, the namespace of the rules Secrets (the
	// PackageInstall's) taken for the desired objects without one
	InstallNamespace   string
	NamespaceDefaulted bool // no -n and no live object: namespaced desired objects without one are in default
	NamespaceUnused    bool // -n was given, yet every namespaced desired object declares its namespace
	VersionWarning     string
}

// Lint lints the kapp Configs under rules against the analysed objects, read as check reads them
// (ytt templates rendered with the package's data values); with live objects, each rule hiding a
// change made in Git as check judges it (the verdict stage, with every rule in force) is an error.
func (a *Analysis) Lint(rules []string) ([]lint.Finding, error) {
	files, err := readRuleFiles(a.Inputs, rules)
	if err == nil {
		err = files.NoRules
	}
	if err != nil {
		return nil, err
	}
	return a.lintFiles(files)
}

func (a *Analysis) lintFiles(files rulefiles.Files) ([]lint.Finding, error) {
	var hidden []lint.Hidden
	if len(a.Inputs.Live) > 0 {
		configs := a.inForce(files)
		v, err := verdict.Judge(verdict.Input{Report: a.Report, Set: a.Set, Configs: configs, Rules: files.Rules(configs, a.Inputs.Reader), Stage: a.Inputs.Progress.stage})
		if err != nil {
			return nil, err
		}
		hidden = verdict.LintHidden(v.Hidden, v.RulesUnjudged)
	}
	return a.lint(files, hidden)
}

// lint lints the rule files as read, with what the verdict found hidden (none: check reports it
// itself).
func (a *Analysis) lint(files rulefiles.Files, hidden []lint.Hidden) ([]lint.Finding, error) {
	opts := lint.Options{Rules: files.Plain, Rendered: files.Rendered, Reader: a.Inputs.Reader, Set: a.Set, Desired: len(a.Inputs.Desired) > 0 || !a.Inputs.Package.Empty(), Ruleset: a.Ruleset, Hidden: hidden,
		KappController: a.Inputs.Package.CR != ""}
	if len(a.Inputs.Live) > 0 {
		g, err := a.Synthesize(synth.Options{})
		if err != nil {
			return nil, err
		}
		opts.Generated = &g.Result
	}
	return lint.Check(opts)
}

// stdinOnce is load.StdinOnce over every flag the inputs and rules (--rules) name.
func (in Inputs) stdinOnce(rules []string) error {
	return load.StdinOnce(in.Reader, []load.FlagPaths{{Flag: "--desired", Paths: in.Desired}, {Flag: "--live", Paths: in.Live}, {Flag: "--crd", Paths: in.CRDs},
		{Flag: "--ruleset", Paths: in.Rulesets}, {Flag: "--package", Paths: in.Package.Dirs}, {Flag: "--values", Paths: in.Package.ValuesFiles},
		{Flag: "--package-cr", Paths: []string{in.Package.CR}}, {Flag: "--rules", Paths: rules}})
}
