package generator

import (
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/rulefiles"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/valuesource"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// Checked is what `rebasegen check` found: the verdict on the rules in force, and lint's findings.
type Checked struct {
	*verdict.Verdict
	// InferredNamespace: the namespace inferred for desired objects without one (no -n given).
	InferredNamespace string
	// At: where each drift, pending change and pending create (Path "") was made, as far as the
	// inputs tell: the desired document when it is a file's; for a package's rendering (its lines
	// are no file's), a pending value the line of the one data value feeding it (valuesource.Sources).
	// Absent: nowhere known.
	At              map[Field]load.Source
	Unmanaged, Live int // live objects without managedFields, of all (pair.Set's)
	Lint            []lint.Finding
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
	files, err := rulefiles.Read(a.Inputs.Reader, ruleFiles, a.Inputs.Package, func(p string) bool { return !a.Inputs.readAsDesired(p) })
	if err != nil {
		return nil, err
	}
	configs := slices.Concat(a.Set.InForce(), files.Configs)
	rules := files.Rules(configs, a.Inputs.Reader)
	if err := verdict.YTTWithinBudget(rules, a.Set.Pairs); err != nil {
		return nil, err
	}
	vd, err := verdict.Judge(verdict.Input{Report: a.Report, Set: a.Set, Configs: configs, Rules: rules, Stage: a.Inputs.Progress.stage})
	if err != nil {
		return nil, err
	}
	c := &Checked{Verdict: vd, InferredNamespace: a.Set.InferredNamespace, Unmanaged: a.Set.Unmanaged, Live: a.Set.Live}
	if c.At, err = a.located(vd); err != nil {
		return nil, err
	}
	for _, f := range ruleFiles {
		st, err := a.stale(f, vd.DriftKept)
		if err != nil {
			return nil, err
		}
		c.Stale = append(c.Stale, st...)
	}
	c.VersionWarning = a.Set.VersionWarning
	if len(ruleFiles) > 0 {
		c.Lint, c.LintSkipped = a.lint(files, nil)
	}
	return c, nil
}

// Field is a resource's field, as findings name it.
type Field struct {
	Resource pair.Identity
	Path     string
}

// located says where each drift, pending change and pending create of the verdict was made
// (Checked.At).
func (a *Analysis) located(vd *verdict.Verdict) (map[Field]load.Source, error) {
	desired := map[pair.Identity]load.Doc{}
	for _, r := range a.Report.Resources {
		desired[r.ID] = r.Desired
	}
	at := map[Field]load.Source{}
	for _, d := range a.Set.Created { // a pending create: the document Git adds
		if !isRendered(d.Source.File) && d.Source.File != "-" {
			at[Field{Resource: pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}}] = d.Source
		}
	}
	var rendered []verdict.Residual // pending values of a package's rendering: its values files may write them
	for _, r := range slices.Concat(vd.Drift, vd.Pending) {
		d, ok := desired[r.Resource]
		src := d.Source
		switch {
		case ok && !isRendered(src.File) && src.File != "-":
			at[Field{r.Resource, r.Finding.Path.String()}] = src
		case ok && isRendered(src.File) && r.Finding.Class == classify.Pending:
			rendered = append(rendered, r)
		}
	}
	values, err := valuesource.Sources(a.Inputs.Package, a.Inputs.Reader, desired, rendered)
	for i, src := range values {
		r := rendered[i]
		at[Field{r.Resource, r.Finding.Path.String()}] = src
	}
	return at, err
}

// Findings are the verdict's findings (verdict.Verdict.Findings), drift, pending changes and
// pending creates located where they were made (At), after the warning that the server's minor
// version has no defaults data, if it has none: a warning in every format, never failing the gate.
func (c *Checked) Findings(g verdict.Gate) []verdict.Finding {
	fs := c.Verdict.Findings(g)
	if c.VersionWarning != "" {
		fs = append([]verdict.Finding{{Kind: verdict.KindServerVersion, Evidence: c.VersionWarning}}, fs...)
	}
	for i, f := range fs {
		if f.Kind != verdict.KindDrift && f.Kind != verdict.KindPending && f.Kind != verdict.KindPendingCreate {
			continue
		}
		if src, ok := c.At[Field{f.Resource, f.Path}]; ok {
			fs[i].File, fs[i].Line = src.File, src.Line
		}
	}
	return fs
}

// isRendered reports whether file names ytt's output: its lines are no file's.
func isRendered(file string) bool {
	_, ok := yttrender.RenderedFrom(file)
	return ok
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

// stale regenerates every file rebasegen generated (recognised by its header) under path with
// the options its header records, and diffs everything below the header.
func (a *Analysis) stale(path string, kept []verdict.Kept) ([]verdict.Stale, error) {
	if path == "-" {
		return nil, nil // stdin: nothing to regenerate into
	}
	files, err := a.Inputs.Reader.ReadPath(path)
	if err != nil {
		return nil, err
	}
	var out []verdict.Stale
	for _, f := range files {
		st, err := a.staleFile(f.Name, f.Data, kept)
		if err != nil {
			return nil, err
		}
		out = append(out, st...)
	}
	return out, nil
}

// staleFile regenerates one file. A file that regenerates as it is written once the drift the
// rules in force keep (kept) is taken for the defaults it replaced is not stale: a person changed
// those fields on the cluster, and regenerating would tie the rules to that change (check reports
// the drift, kept by the rules).
func (a *Analysis) staleFile(file string, committed []byte, kept []verdict.Kept) ([]verdict.Stale, error) {
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
	regenerated, err := a.regenerate(opts)
	if err != nil {
		return nil, err
	}
	at, changed := generated.Changed(string(committed), regenerated)
	var why string
	if changed && len(kept) > 0 {
		undrifted, err := a.undrifted(kept).regenerate(opts)
		if err != nil {
			return nil, err
		}
		if _, changed = generated.Changed(string(committed), undrifted); changed {
			var fields []string
			for _, k := range kept {
				fields = append(fields, k.String())
			}
			why = "besides drift the rules keep (" + strings.Join(fields, ", ") + "), "
		}
	}
	if !changed {
		if status == generated.Edited {
			return []verdict.Stale{{File: file, Line: 1, Diff: "its header's digest does not match its content: it was changed since rebasegen generated it\n"}}, nil
		}
		return nil, nil // what kapp reads is the same; comments naming other inputs' resources are not
	}
	// the diff is what regenerating writes, comments included
	was, now := generated.Compared(string(committed)), generated.Compared(regenerated)
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: lines(was), B: lines(now),
		FromFile: file + " (committed)", ToFile: file + " (regenerated)", Context: 2})
	return []verdict.Stale{{File: file, Line: at, Diff: why + diff, Inputs: a.unlikeRecorded(opts)}}, nil
}

// regenerate writes the rules file the options a header records make of the analysis.
func (a *Analysis) regenerate(opts emit.Options) (string, error) {
	// The rules' text does not depend on kapp's verdict: synthesis alone regenerates them. The
	// rules come from check's inputs, the file's shape from the options its header records: a
	// file generated from plain manifests names each resource's namespace, though check renders
	// the package (its rules would follow the install namespace).
	so := synth.Options{IncludeUnknown: opts.IncludeUnknown}
	rules := synth.Synthesize(a.Report, so).Rules
	if len(opts.Packages) > 0 || opts.PackageCR != "" {
		g, err := a.Synthesize(so)
		if err != nil {
			return "", err
		}
		rules = g.Rules
	}
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, rules, emit.Header{Options: opts}); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// undrifted is the analysis with each kept drift taken for the server's default it replaced: a
// copy from the live object of a field the manifest leaves to the server is what kept it.
func (a *Analysis) undrifted(kept []verdict.Kept) *Analysis {
	b := *a
	rep := *a.Report
	rep.Resources = slices.Clone(rep.Resources)
	for i, r := range rep.Resources {
		var fs []classify.Finding
		for j, f := range r.Findings {
			// kept by a rule of its own, on a field the manifest leaves to the server
			if f.Class == classify.Drift && f.Desired == nil && slices.ContainsFunc(kept, func(k verdict.Kept) bool {
				return k.Resource == r.ID && k.Path == f.Path.String() && k.Copied
			}) {
				if fs == nil {
					fs = slices.Clone(r.Findings)
				}
				fs[j].Class = classify.Defaulted
			}
		}
		if fs != nil {
			rep.Resources[i].Findings = fs
		}
	}
	b.Report, b.synthesized = &rep, nil // the memo holds a's rules
	return &b
}

// unlikeRecorded compares the inputs a Regenerate line records with this check's: each flag and
// value only one of them has (paths cleaned; the namespace as used, inferred or given).
func (a *Analysis) unlikeRecorded(recorded emit.Options) []string {
	in := a.Inputs
	given := emit.Options{Desired: in.Desired, Live: in.Live, CRDs: in.CRDs, Rulesets: in.Rulesets, Packages: in.Package.Dirs,
		Values: in.Package.ValuesFiles, ValueArgs: in.Package.Values, ValueYAMLArgs: in.Package.ValuesYAML, PackageCR: in.Package.CR,
		Namespace: cmp.Or(in.Namespace, a.Set.InferredNamespace), NoOperational: in.NoOperational}
	rec, giv := inputArgs(recorded), inputArgs(given)
	var out []string
	for _, x := range rec {
		if i := slices.Index(giv, x); i >= 0 {
			giv = slices.Delete(giv, i, i+1)
			continue
		}
		out = append(out, x+" (Regenerate line only)")
	}
	for _, x := range giv {
		out = append(out, x+" (this check only)")
	}
	return out
}

// inputArgs are the input flags of o as its Regenerate line writes them, "--flag value" each.
func inputArgs(o emit.Options) []string {
	in := emit.Options{Desired: o.Desired, Live: o.Live, CRDs: o.CRDs, Rulesets: o.Rulesets, Packages: o.Packages, Values: o.Values,
		ValueArgs: o.ValueArgs, ValueYAMLArgs: o.ValueYAMLArgs, PackageCR: o.PackageCR, Namespace: o.Namespace, NoOperational: o.NoOperational}
	for _, l := range []*[]string{&in.Desired, &in.Live, &in.CRDs, &in.Rulesets, &in.Packages, &in.Values} {
		*l = slices.Clone(*l)
		for i, p := range *l {
			(*l)[i] = filepath.Clean(p)
		}
	}
	if in.PackageCR != "" {
		in.PackageCR = filepath.Clean(in.PackageCR)
	}
	var out []string
	args := in.Args()
	for i := 0; i < len(args); i++ {
		if args[i] == "--no-operational" {
			out = append(out, args[i])
			continue
		}
		out = append(out, args[i]+" "+args[i+1])
		i++
	}
	return out
}

// lines are the lines of compared, each with its newline, as difflib diffs them.
func lines(ls []string) []string { return difflib.SplitLines(strings.Join(ls, "\n")) }
