package generator

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// Checked is what `rebasegen check` found.
type Checked struct {
	Residual []Residual // ghost diffs the rules leave
	Stale    []Stale    // generated rule files that would change
	Drift    []Residual // human changes found in the live objects
	// Pending: changes made in Git that kapp applies on deploy (the live value is what kapp last
	// applied): reported, never drift.
	Pending  []Residual
	Unknown  []Residual // fields nothing explains, for which kapp still updates a resource
	Hidden   []Hidden   // declared fields whose change made in Git a rule hides (the mutation check)
	Verdict  Verdict    // kapp's engine on every pair, with the package's rules and the rule files
	Unpaired []Unpaired // desired objects with no live counterpart: pending creates, not compared
	Adoption []Residual // what kapp changes once when it takes objects over (never ruled)
	// PendingDeletes: live objects of the app with no desired counterpart: kapp deletes them.
	PendingDeletes []pair.Identity
	// InferredNamespace: the namespace inferred for desired objects without one (no -n given).
	InferredNamespace string
	Unmanaged, Live   int // live objects without managedFields, of all (pair.Set's)
	Lint              []lint.Finding
	// LintSkipped: lint could not read the rule files; the gate does not fail on it.
	LintSkipped error
}

// Residual is one field kapp would still report.
type Residual struct {
	Resource pair.Identity
	Finding  classify.Finding
}

// Stale is a generated file whose regeneration differs.
type Stale struct {
	File string
	Line int    // first differing line
	Diff string // unified diff, committed -> regenerated
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
	userConfigs, err := ruleConfigs(a.Inputs.Reader, slices.DeleteFunc(slices.Clone(ruleFiles), a.Inputs.readAsDesired), a.Inputs.Package)
	if err != nil {
		return nil, err
	}
	configs := slices.Concat(a.Set.InForce(), userConfigs)
	covered, err := kappcover.CoveredBy(a.Report, configs)
	if err != nil {
		return nil, err
	}
	c := &Checked{Unpaired: a.Unpaired(), InferredNamespace: a.Set.InferredNamespace, Unmanaged: a.Set.Unmanaged, Live: a.Set.Live}
	if c.PendingDeletes, err = a.PendingDeletes(); err != nil {
		return nil, err
	}
	for i, r := range a.Report.Resources {
		for _, f := range r.Findings {
			switch {
			case f.Class == classify.Adoption:
				c.Adoption = append(c.Adoption, Residual{r.ID, f})
			case f.Class == classify.Drift:
				c.Drift = append(c.Drift, Residual{r.ID, f})
			case f.Class == classify.Pending:
				c.Pending = append(c.Pending, Residual{r.ID, f})
			case !f.Ruled(false):
			case !f.Covered() && !covered[i][f.Path.String()] && !f.KappView: // the package's own rules count too // kapp-view fields are judged by kapp's engine below
				c.Residual = append(c.Residual, Residual{r.ID, f})
			}
		}
	}
	// kapp's engine has the last word, on every pair: a resource it still updates for ghost
	// diffs is residual even when each field looked covered, and one it updates for fields
	// nothing explains is named with them.
	var results []verify.Result
	if c.Verdict, _, results, _, err = verdictOf(a.Report, unstructuredOf(configs), false, a.Inputs.Progress); err != nil {
		return nil, err
	}
	for _, u := range c.Verdict.Updates {
		if u.Ghost && !hasResidual(c.Residual, u.Resource) {
			c.Residual = append(c.Residual, Residual{u.Resource, classify.Finding{Evidence: "kapp still " + strings.TrimPrefix(u.Diff, "kapp ")}})
		}
		for _, f := range u.Fields {
			if f.Class == classify.Unknown {
				c.Unknown = append(c.Unknown, Residual{u.Resource, f})
			}
		}
	}
	// The safety net: a rule letting the cluster win must not hide a change made in Git to a
	// field only the manifest's applier owns.
	if c.Hidden, err = a.HiddenBy(HidingRules(configs, a.Inputs.Reader), unstructuredOf(configs), verifiedBy(a.Report, results)); err != nil {
		return nil, err
	}
	pendingHidden, err := a.pendingHidden(c.Pending, results)
	if err != nil {
		return nil, err
	}
	c.Hidden = append(c.Hidden, pendingHidden...)
	c.Pending = slices.DeleteFunc(c.Pending, func(p Residual) bool { // hidden: kapp does not apply it
		return slices.ContainsFunc(pendingHidden, func(h Hidden) bool { return h.Resource == p.Resource && h.Path == p.Finding.Path.String() })
	})
	for _, f := range ruleFiles {
		st, err := a.stale(f)
		if err != nil {
			return nil, err
		}
		c.Stale = append(c.Stale, st...)
	}
	if len(ruleFiles) > 0 {
		plain, rendered, err := lintSources(a.Inputs.Reader, ruleFiles, a.Inputs.Package)
		if err != nil {
			return nil, err
		}
		c.Lint, c.LintSkipped = a.lint(plain, rendered, false)
	}
	return c, nil
}

// lintSources reads rule paths for lint as check reads them for kapp (ruleObjects, secretRules):
// a path ytt renders (a ytt template, a package directory) and the ytt rebase-rules.yml of a
// rules Secret are linted as ytt renders them with the package's data values; the other paths as
// written, their findings on their own lines.
func lintSources(r *load.Reader, paths []string, pkg yttrender.Package) (plain []string, rendered []lint.Rendered, err error) {
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
			line := o.Source.Line // the Secret's line in the file; unknown in ytt's output
			if ytt {
				line = 0
			}
			rendered = append(rendered, lint.Rendered{Path: p, Line: line, Objects: configs})
		}
	}
	return plain, rendered, nil
}

// pendingHidden returns the changes made in Git that kapp, under the rules in force, does not
// apply under some base. The mutation check changes declared values to ones no rule can predict;
// this asks about the value Git actually holds, which a rule can single out. A change kapp keeps
// even under its built-in rules alone is kapp's own behaviour, not a rule's, and is left out.
func (a *Analysis) pendingHidden(pending []Residual, results []verify.Result) ([]Hidden, error) {
	at := map[pair.Identity]int{}
	for i, r := range a.Report.Resources {
		at[r.ID] = i
	}
	var idx []int
	var fields [][]Residual
	for _, p := range pending {
		i := at[p.Resource]
		if kept := keptUnder(results[i]); len(kept) == 0 {
			continue
		}
		if n := len(idx); n > 0 && idx[n-1] == i {
			fields[n-1] = append(fields[n-1], p)
			continue
		}
		idx, fields = append(idx, i), append(fields, []Residual{p})
	}
	if len(idx) == 0 {
		return nil, nil
	}
	pairs := make([]pair.Pair, len(idx))
	for j, i := range idx {
		pairs[j] = a.Report.Resources[i].Pair
	}
	alone, _, err := verifyPairs(pairs, nil, nil)
	if err != nil {
		return nil, err
	}
	var out []Hidden
	for j, i := range idx {
		bases := keptUnder(results[i])
		if len(keptUnder(alone[j])) == len(bases) {
			continue
		}
		for _, p := range fields[j] {
			out = append(out, Hidden{Resource: p.Resource, Path: p.Finding.Path.String(),
				Rule: fmt.Sprintf("the rules in force (the manifest changed this field since kapp last applied it, and kapp keeps the resource under the %s base)", strings.Join(bases, " and "))})
		}
	}
	return out, nil
}

// keptUnder returns the bases under which kapp keeps the resource.
func keptUnder(res verify.Result) []string {
	var out []string
	for _, b := range verify.Bases() {
		if res.Op[b] == verify.OpKeep {
			out = append(out, string(b))
		}
	}
	return out
}

func hasResidual(rs []Residual, id pair.Identity) bool {
	for _, r := range rs {
		if r.Resource == id {
			return true
		}
	}
	return false
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
// rebase-rules.yml).
func ruleConfigs(r *load.Reader, paths []string, pkg yttrender.Package) ([]load.Object, error) {
	var out []load.Object
	for _, p := range paths {
		objs, err := ruleObjects(r, p, pkg)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			switch {
			case load.IsKappConfig(o.GetAPIVersion(), o.GetKind()) || load.IsLabelledConfig(o):
				out = append(out, o)
			case o.GetKind() == "Secret" && o.GetAPIVersion() == "v1":
				embedded, err := secretRules(r, o, pkg)
				if err != nil {
					return nil, err
				}
				out = append(out, embedded...)
			}
		}
	}
	return out, nil
}

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
	docs, err := pkg.RenderFile(r, o.Source.File+" (rebase-rules.yml)", "rebase-rules.yml", []byte(text))
	if err != nil {
		return nil, err
	}
	return load.Objects(docs)
}

// stale regenerates every file rebasegen generated (recognised by its header) under path with
// the options its header records, and diffs everything below the header.
func (a *Analysis) stale(path string) ([]Stale, error) {
	if path == "-" {
		return nil, nil // stdin: nothing to regenerate into
	}
	files, err := a.Inputs.Reader.ReadPath(path)
	if err != nil {
		return nil, err
	}
	var out []Stale
	for _, f := range files {
		st, err := a.staleFile(f.Name, f.Data)
		if err != nil {
			return nil, err
		}
		out = append(out, st...)
	}
	return out, nil
}

func (a *Analysis) staleFile(file string, committed []byte) ([]Stale, error) {
	status := generated.Of(committed)
	if status == generated.None {
		return nil, nil
	}
	opts, ok, err := emit.Recorded(file, string(committed))
	if err != nil {
		return nil, err
	}
	if !ok {
		return []Stale{{File: file, Line: 1, Diff: "its header records no Regenerate command: it was not written so by rebasegen\n"}}, nil
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
			return []Stale{{File: file, Line: 1, Diff: "its header's digest does not match its content: it was changed since rebasegen generated it\n"}}, nil
		}
		return nil, nil
	}
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: lines(was), B: lines(now),
		FromFile: file + " (committed)", ToFile: file + " (regenerated)", Context: 2})
	return []Stale{{File: file, Line: generated.LineOf(string(committed), firstDifference(was, now)), Diff: diff}}, nil
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
