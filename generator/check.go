package generator

import (
	"bytes"
	"os"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// Checked is what `rebasegen check` found: the verdict on the rules in force, and lint's findings.
type Checked struct {
	*verdict.Verdict
	// InferredNamespace: the namespace inferred for desired objects without one (no -n given).
	InferredNamespace string
	Unmanaged, Live   int // live objects without managedFields, of all (pair.Set's)
	Lint              []lint.Finding
	// LintSkipped: lint could not read the rule files; the gate does not fail on it.
	LintSkipped error

	VersionWarning string // pair.Set's
}

// Check runs kapp's engine with the package's own rules plus the rule files, regenerates every
// rule file rebasegen generated to see whether it is stale, and lints the rule files.
func Check(in Inputs, ruleFiles []string) (*Checked, error) {
	if err := stdinOnce(in, ruleFiles); err != nil {
		return nil, err
	}
	if err := load.TotalSize(append(in.paths(), ruleFiles...)...); err != nil {
		return nil, err
	}
	a, err := Analyze(in)
	if err != nil {
		return nil, err
	}
	return a.Check(ruleFiles)
}

// Check judges the rule files against the analysis: each pair is classified once (by Analyze)
// and verified once, with the package's rules plus the rule files.
func (a *Analysis) Check(ruleFiles []string) (*Checked, error) {
	// The rules kapp will apply: the package's own, those of files rebasegen generated among the
	// desired inputs, and the rule files (those not read as desired inputs already).
	userConfigs, secrets, err := ruleConfigs(a.Inputs.Reader, slices.DeleteFunc(slices.Clone(ruleFiles), a.Inputs.readAsDesired), a.Inputs.Package)
	if err != nil {
		return nil, err
	}
	configs := slices.Concat(a.Set.InForce(), userConfigs)
	vd, err := verdict.Judge(verdict.Input{Report: a.Report, Set: a.Set, Configs: configs, Rules: rulesAt(configs, a.Inputs.Reader, secrets), Stage: a.Inputs.Progress.stage})
	if err != nil {
		return nil, err
	}
	c := &Checked{Verdict: vd, InferredNamespace: a.Set.InferredNamespace, Unmanaged: a.Set.Unmanaged, Live: a.Set.Live}
	for _, f := range ruleFiles {
		st, err := a.stale(f)
		if err != nil {
			return nil, err
		}
		c.Stale = append(c.Stale, st...)
	}
	c.VersionWarning = a.Set.VersionWarning
	if len(ruleFiles) > 0 {
		plain, rendered, err := lintSources(a.Inputs.Reader, ruleFiles, a.Inputs.Package)
		if err != nil {
			return nil, err
		}
		c.Lint, c.LintSkipped = a.lint(plain, rendered, nil)
	}
	return c, nil
}

// lintSources reads rule paths for lint as check reads them for kapp (ruleObjects, secretRules):
// a path ytt renders (a ytt template, a package directory) and the ytt rebase-rules.yml of a
// rules Secret are linted as ytt renders them with the package's data values; the other paths as
// written, their findings on their own lines.
func lintSources(r *load.Reader, paths []string, pkg yttrender.Package) (plain []string, rendered []lint.Rendered, err error) {
	lines := lint.NewLines(r)
	for _, p := range paths {
		objs, err := ruleObjects(r, p, pkg)
		if err != nil {
			return nil, nil, err
		}
		ytt := IsYTT(r, p)
		if ytt {
			rendered = append(rendered, lint.Rendered{Path: p, Objects: objs})
		} else {
			plain = append(plain, p)
		}
		for _, o := range objs {
			if o.GetAPIVersion() != "v1" || o.GetKind() != "Secret" {
				continue
			}
			// lint reads a plain rebase-rules.yml itself, and reports one it cannot decode
			if text, found, err := lint.SecretText(o); !found || err != nil || !yttrender.HasYTTAnnotations(lint.SecretKey, []byte(text)) {
				continue
			}
			configs, err := secretRules(r, o, pkg)
			if err != nil {
				return nil, nil, err
			}
			line := lines.Key(o, []string{"stringData", lint.SecretKey}, []string{"data", lint.SecretKey}) // unknown in ytt's output
			if ytt {
				line = 0
			}
			rendered = append(rendered, lint.Rendered{Path: p, Line: line, Objects: configs})
		}
	}
	return plain, rendered, nil
}

// readAsDesired reports whether every file of the --rules path p is also a file of a desired
// input (a --desired path, a package's directory): its rules are in force from there (the
// package's own, or generated ones), and read again they would be applied twice.
func (in Inputs) readAsDesired(p string) bool {
	if p == "-" {
		return false
	}
	rules, err := in.Reader.ReadPath(p)
	if err != nil {
		return false
	}
	var desired []os.FileInfo
	for _, d := range slices.Concat(in.Desired, in.Package.Dirs) {
		if d == "-" {
			continue
		}
		files, _ := in.Reader.ReadPath(d)
		for _, f := range files {
			if st, err := os.Stat(f.Name); err == nil {
				desired = append(desired, st)
			}
		}
	}
	for _, f := range rules {
		st, err := os.Stat(f.Name)
		if err != nil || !slices.ContainsFunc(desired, func(d os.FileInfo) bool { return os.SameFile(d, st) }) {
			return false
		}
	}
	return true
}

// ruleConfigs reads kapp Config documents from rule files and directories: plain Configs,
// ConfigMaps labelled kapp.k14s.io/config, ytt templates and package directories (rendered with
// the package's data values, as the package would be) and rebasegen's Secret format (its
// rebase-rules.yml). secrets says where each Secret written in a file holds the rules ytt
// rendered from it, by the name of the rendering.
func ruleConfigs(r *load.Reader, paths []string, pkg yttrender.Package) (_ []load.Object, secrets map[string]verdict.RuleAt, _ error) {
	var out []load.Object
	lines := lint.NewLines(r)
	for _, p := range paths {
		objs, err := ruleObjects(r, p, pkg)
		if err != nil {
			return nil, nil, err
		}
		for _, o := range objs {
			switch {
			case load.IsKappConfig(o.GetAPIVersion(), o.GetKind()) || load.IsLabelledConfig(o):
				out = append(out, o)
			case o.GetKind() == "Secret" && o.GetAPIVersion() == "v1":
				embedded, err := secretRules(r, o, pkg)
				if err != nil {
					return nil, nil, err
				}
				out = append(out, embedded...)
				if _, rendered := yttrender.RenderedFrom(o.Source.File); !rendered && len(embedded) > 0 {
					if secrets == nil {
						secrets = map[string]verdict.RuleAt{}
					}
					secrets[secretName(o)] = verdict.RuleAt{File: o.Source.File, Doc: o.Source.Doc,
						Line: lines.Key(o, []string{"stringData", lint.SecretKey}, []string{"data", lint.SecretKey})}
				}
			}
		}
	}
	return out, secrets, nil
}

// rulesAt reads the rules of configs that can hide a declared field (verdict.Rules); those ytt
// rendered from a rules Secret written in a file are placed at the Secret's key there, the line
// an author (and a GitHub annotation) can find.
func rulesAt(configs []load.Object, r *load.Reader, secrets map[string]verdict.RuleAt) []verdict.Rule {
	rules := verdict.Rules(configs, r)
	for i := range rules {
		at := &rules[i].At
		if s, ok := secrets[at.File]; ok && at.Line == 0 {
			at.File, at.Doc, at.Line, at.Key = s.File, s.Doc, s.Line, `data["`+lint.SecretKey+`"] `+at.Key
		}
	}
	return rules
}

// secretName is what ytt's rendering of a rules Secret's rebase-rules.yml is called.
func secretName(o load.Object) string { return o.Source.File + " (" + lint.SecretKey + ")" }

// ruleObjects reads one --rules path; a file or directory holding ytt templates is rendered.
func ruleObjects(r *load.Reader, p string, pkg yttrender.Package) ([]load.Object, error) {
	if !IsYTT(r, p) {
		return load.Paths([]string{p}, r)
	}
	docs, err := (yttrender.Package{Dirs: []string{p}, ValuesFiles: pkg.ValuesFiles, Values: pkg.Values, ValuesYAML: pkg.ValuesYAML, What: "rules file"}).Render(r)
	if err != nil {
		return nil, err
	}
	return load.Objects(docs)
}

// IsYTT says whether a file, or any file of a directory, holds ytt annotations
// (yttrender.HasYTTAnnotations): it is rendered with ytt, not read as plain YAML. r reads p: stdin and pipes only once, so that what is sniffed
// here is still there to read.
func IsYTT(r *load.Reader, p string) bool {
	files, _ := r.ReadPath(p) // an error is reported when p is read
	for _, f := range files {
		if f.Name != "-" && yttrender.HasYTTAnnotations(f.Name, f.Data) { // stdin is read as plain YAML
			return true
		}
	}
	return false
}

// secretRules reads the Configs a rebase-rules Secret carries: its rebase-rules.yml rendered with
// ytt with the package's values, as kapp-controller's ytt step renders the files of a Secret named
// by ext.packaging.carvel.dev/ytt-paths-from-secret-name (it is read alone, not with the
// package's files).
func secretRules(r *load.Reader, o load.Object, pkg yttrender.Package) ([]load.Object, error) {
	text, found, err := lint.SecretText(o)
	if err != nil {
		return nil, &load.Error{Source: o.Source, Field: "data." + lint.SecretKey, Msg: err.Error()}
	}
	if !found {
		return nil, nil
	}
	if yttrender.HasYTTOverlay("rebase-rules.yml", []byte(text)) {
		return nil, &load.Error{Source: o.Source, Field: "rebase-rules.yml", Msg: "it uses ytt overlays, which kapp-controller applies to the package's objects too: not supported (put the rules in a Config without overlays)"}
	}
	docs, err := pkg.RenderFile(r, secretName(o), lint.SecretKey, []byte(text))
	if err != nil {
		return nil, err
	}
	return load.Objects(docs)
}

// stale regenerates every file rebasegen generated (recognised by its header) under path with
// the options its header records, and diffs everything below the header.
func (a *Analysis) stale(path string) ([]verdict.Stale, error) {
	if path == "-" {
		return nil, nil // stdin: nothing to regenerate into
	}
	files, err := a.Inputs.Reader.ReadPath(path)
	if err != nil {
		return nil, err
	}
	var out []verdict.Stale
	for _, f := range files {
		st, err := a.staleFile(f.Name, f.Data)
		if err != nil {
			return nil, err
		}
		out = append(out, st...)
	}
	return out, nil
}

func (a *Analysis) staleFile(file string, committed []byte) ([]verdict.Stale, error) {
	status := generated.Of(committed)
	if status == generated.None {
		return nil, nil
	}
	opts, ok, err := emit.Recorded(file, string(committed))
	if err != nil {
		return nil, err
	}
	if !ok {
		return []verdict.Stale{{File: file, Line: 1, Diff: "its header records no Regenerate command: it was not written so by rebasegen\n"}}, nil
	}
	// The rules' text does not depend on kapp's verdict: synthesis alone regenerates them. The
	// rules come from check's inputs, the file's shape from the options its header records: a
	// file generated from plain manifests names each resource's namespace, though check renders
	// the package (its rules would follow the install namespace).
	so := synth.Options{IncludeUnknown: opts.IncludeUnknown}
	rules := synth.Synthesize(a.Report, so).Rules
	if len(opts.Packages) > 0 || opts.PackageCR != "" {
		g, err := a.Synthesize(so)
		if err != nil {
			return nil, err
		}
		rules = g.Rules
	}
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, rules, emit.Header{Options: opts}); err != nil {
		return nil, err
	}
	was, now := generated.Compared(string(committed)), generated.Compared(buf.String())
	if slices.Equal(was, now) {
		if status == generated.Edited {
			return []verdict.Stale{{File: file, Line: 1, Diff: "its header's digest does not match its content: it was changed since rebasegen generated it\n"}}, nil
		}
		return nil, nil
	}
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: lines(was), B: lines(now),
		FromFile: file + " (committed)", ToFile: file + " (regenerated)", Context: 2})
	return []verdict.Stale{{File: file, Line: generated.LineOf(string(committed), firstDifference(was, now)), Diff: diff}}, nil
}

// lines are the lines of compared, each with its newline, as difflib diffs them.
func lines(ls []string) []string { return difflib.SplitLines(strings.Join(ls, "\n")) }

func firstDifference(al, bl []string) int {
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			return i + 1
		}
	}
	return len(al)
}
