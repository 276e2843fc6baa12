package verdict

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// Regeneration is what check regenerates the rule files rebasegen generated from.
type Regeneration struct {
	Reader *load.Reader
	Report *classify.Report
	// Kept: the drift the rules in force keep (Verdict.DriftKept).
	Kept []Kept
	// Placement makes the rules regenerated for a package follow the namespace it is installed
	// into (synth.Place); nil: they name the namespaces the objects were analysed in.
	Placement *synth.Placement
	// Rendered: Placement is of the --desired objects without a namespace, a package rendered
	// outside rebasegen, for a file whose header records --package (a --package-cr's deploy step
	// may set intoNs, which the manifests do not say: its files are regenerated unplaced).
	Rendered bool
	// Given are this check's inputs, as a Regenerate line records them (Stale.Inputs).
	Given emit.Options
	// Deployed returns the deployed state: nil when there is none. nil: not asked.
	Deployed func() *Deployed
	// GitChanges: the manifests hold changes made in Git that kapp applies on deploy (pending
	// changes, creates or deletes).
	GitChanges bool
	// Residual: the ghost diffs the rules in force leave on these manifests (Verdict.Residual).
	Residual []Residual
	// Hidden: the changes made in Git the rules in force hide (Verdict.Hidden).
	Hidden []Hidden
}

// Deployed is the classification of the live objects against what kapp last applied to each
// (kapp.k14s.io/original), and the placement of the rules regenerated from it (Regeneration's).
type Deployed struct {
	Report    *classify.Report
	Placement *synth.Placement
}

// GeneratedFile is a rules file rebasegen generated (recognised by its header), read once by check
// for its stale pass and the inputs unlike its Regenerate line's.
type GeneratedFile struct {
	Name string
	Data []byte
	// Opts: the options its Regenerate line records; Recorded false when it has none
	Opts     emit.Options
	Recorded bool
}

// ReadGenerated reads the files rebasegen generated under each of paths (stdin is read once: not
// there), each with the options its Regenerate line records.
func ReadGenerated(r *load.Reader, paths []string) ([]GeneratedFile, error) {
	var out []GeneratedFile
	for _, path := range paths {
		if path == "-" {
			continue
		}
		files, err := r.ReadPath(path)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if generated.Of(f.Data) == generated.None {
				continue
			}
			header, _, _, _ := comparedForm(f.Data)
			opts, ok, err := emit.Recorded(f.Name, string(header))
			if err != nil {
				return nil, err
			}
			out = append(out, GeneratedFile{Name: f.Name, Data: f.Data, Opts: opts, Recorded: ok})
		}
	}
	return out, nil
}

// StaleFiles regenerates every file rebasegen generated (ReadGenerated) with the options its
// header records, and diffs everything below the header. deferred are the files that regenerate
// differently from this check's manifests but as they are written from what kapp last applied:
// not stale (staleFile), each with the inputs unlike its Regenerate line's.
func StaleFiles(in Regeneration, files []GeneratedFile) (stale, deferred []Stale, _ error) {
	for _, f := range files {
		st, def, err := in.staleFile(f)
		if err != nil {
			return nil, nil, err
		}
		stale = append(stale, st...)
		if def != nil {
			deferred = append(deferred, *def)
		}
	}
	return stale, deferred, nil
}

// staleFile regenerates one file. A file that regenerates as it is written once the drift the
// rules in force keep (kept) is taken for the defaults it replaced is not stale: a person changed
// those fields on the cluster, and regenerating would tie the rules to that change (check reports
// the drift, kept by the rules). Nor is a file that regenerates as it is written from what kapp
// last applied (deferred): the manifests' changes made in Git are not deployed yet, kapp's engine
// judges them with the rules as they are (pending, residual, hidden), and regenerating from them
// against live objects captured before the deploy would drop rules the deployed objects need.
func (in Regeneration) staleFile(f GeneratedFile) (_ []Stale, deferred *Stale, _ error) {
	file, opts, status := f.Name, f.Opts, generated.Of(f.Data)
	_, committed, form, line := comparedForm(f.Data)
	if !f.Recorded {
		return []Stale{{File: file, Line: 1, Diff: "its header records no Regenerate command: it was not written so by rebasegen\n"}}, nil, nil
	}
	regenerated, at, changed, why, err := in.compare(in.Report, in.Placement, opts, committed, form)
	if err != nil {
		return nil, nil, err
	}
	if changed && in.Deployed != nil {
		if dep := in.Deployed(); dep != nil {
			depRegenerated, depAt, depChanged, depWhy, err := in.compare(dep.Report, dep.Placement, opts, committed, form)
			if err != nil {
				return nil, nil, err
			}
			ghosts := in.regenerable()
			hidden, refused := in.hiddenBy(file)
			switch {
			case len(hidden)+len(refused) > 0:
				// the gate fails on a change made in Git this file hides, whatever else it
				// differs in: waiting for the deploy applies nothing of it (or fails it, the
				// server refusing the rules' value beside the manifest's), regenerating from
				// these manifests lets it through; against a capture from before the deploy,
				// the regenerated rules can lack some the deployed objects need (newcomer12
				// N12-1: a file an older rebasegen generated told "regenerate after the deploy"
				// beside the hidden change's "regenerate them")
				var does []string
				if len(hidden) > 0 {
					does = append(does, "it hides changes made in Git ("+strings.Join(hidden, ", ")+")")
				}
				if len(refused) > 0 {
					does = append(does, "it makes kapp's deploy fail on changes made in Git ("+strings.Join(refused, ", ")+")")
				}
				why = strings.Join(does, "; ") + ": regenerate it now, from these manifests, and once more after the deploy, from a new capture (the regeneration from live objects captured before the deploy can lack rules the deployed objects need)\n"
			case !depChanged && len(ghosts) > 0:
				// the rules in force fail these manifests with ghost diffs the deploy does not
				// end (the manifest declares part of a map the server defaults the rest of, and
				// a copy of the whole map takes the manifest's part): waiting for the deploy is
				// no path to green, regenerating from these manifests is
				why = "up to date with what kapp last applied, but these manifests leave ghost diffs under it that the deploy does not end (" +
					strings.Join(ghosts, ", ") + "): regenerate it now, from these manifests\n"
			case !depChanged:
				changed, deferred = false, &Stale{File: file, Inputs: unlikeRecorded(opts, in.Given, file)}
			case in.GitChanges:
				// regenerating from the manifests takes their changes made in Git for the deployed
				// state: the diff is against the rules for what is deployed
				regenerated, at = depRegenerated, depAt
				why = depWhy + "compared with the rules regenerated from what kapp last applied (kapp.k14s.io/original), this deploy's changes made in Git left out but for the fields the manifests no longer declare that the cluster sets again: regenerating from these manifests before the deploy could drop rules the deployed objects need; undo the edit, or regenerate after the deploy, from a new capture\n"
			}
		}
	}
	at = line(at)
	if !changed {
		if status == generated.Edited {
			return []Stale{{File: file, Line: line(1), Diff: "its header's digest does not match its content: it was changed since rebasegen generated it\n", InPlace: opts.InPlace(file)}}, nil, nil
		}
		if deferred == nil {
			if deferred, err = in.redefaulted(file, opts, committed, form); err != nil {
				return nil, nil, err
			}
		}
		return nil, deferred, nil // what kapp reads is the same; comments naming other inputs' resources are not
	}
	// the diff is what regenerating writes, comments included, a Secret's values masked
	committedShown, ok := secretShown(string(committed))
	if !ok {
		return []Stale{{File: file, Line: at, Diff: why + "its diff is not shown: it does not read as YAML\n", Why: why, Inputs: unlikeRecorded(opts, in.Given, file), InPlace: opts.InPlace(file)}}, nil, nil
	}
	regeneratedShown, _ := secretShown(regenerated)
	was, now := generated.Compared(committedShown), generated.Compared(regeneratedShown)
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: lines(was), B: lines(now),
		FromFile: file + " (committed)", ToFile: file + " (regenerated)", Context: 2})
	return []Stale{{File: file, Line: at, Diff: why + generated.ComparedHunks(diff), Why: why, Inputs: unlikeRecorded(opts, in.Given, file), InPlace: opts.InPlace(file)}}, nil, nil
}

// comparedForm is a generated file as it is compared: its header (where its Regenerate line is
// read), the text compared, the form a regenerated file is compared in, and the line a
// difference is reported at. A rules Secret serialised again (its header quoted or
// base64-encoded, the comments above it gone) is compared as rebasegen writes it, at the line of
// the key holding the rules.
func comparedForm(committed []byte) (header, compared []byte, form func(string) string, line func(int) int) {
	sec, ok := generated.ReadSecret(committed)
	if !ok || generated.Marked(committed) {
		return committed, committed, func(s string) string { return s }, func(at int) int { return at }
	}
	form = func(s string) string {
		if r, ok := generated.ReadSecret([]byte(s)); ok {
			return r.Canonical()
		}
		return s
	}
	return []byte(sec.Body), []byte(sec.Canonical()), form, func(int) int { return sec.Line }
}

// Unlike is a rules file rebasegen generated whose Regenerate line records inputs other than
// this run's: the flags and values only one of them has (unlikeRecorded).
type Unlike struct {
	File   string
	Inputs []string
}

// String says so where this run's inputs are refused: an input the rules were generated with
// that this run lacks is the likeliest cause (newcomer16 N16-5: check without the --values the
// rules record had the package's empty image refused, "image: Required value", and nothing said
// why).
func (u Unlike) String() string {
	return "this check's inputs differ from those " + u.File + " was generated with (its Regenerate line): " + strings.Join(u.Inputs, ", ")
}

// UnlikeFiles are the rules files rebasegen generated (ReadGenerated) whose Regenerate line
// records inputs other than given. settled: given holds the namespace as used and the data values
// as a Regenerate line records them (emit.Options.WithoutSecretValues). Else given is the command
// line's alone (the run failed before reading its inputs): the line's namespace is compared only
// with one given, and a data value the line does not record is left out, never printed (it may
// be a Secret's).
func UnlikeFiles(files []GeneratedFile, given emit.Options, settled bool) []Unlike {
	var out []Unlike
	for _, f := range files {
		if !f.Recorded {
			continue // no Regenerate line: stale says so
		}
		g := given
		if !settled {
			g = unsettled(given, f.Opts)
		}
		if inputs := unlikeRecorded(f.Opts, g, f.Name); len(inputs) > 0 {
			out = append(out, Unlike{File: f.Name, Inputs: inputs})
		}
	}
	return out
}

// unsettled is given, the command line's inputs of a run that failed before reading them, as
// compared with the inputs recorded: the recorded namespace where none was given (the run would
// have inferred one), and of the data values given only those recorded, a Secret's as recorded.
func unsettled(given, recorded emit.Options) emit.Options {
	if given.Namespace == "" {
		given.Namespace = recorded.Namespace
	}
	only := func(args, rec []string) []string {
		var out []string
		for _, a := range args {
			key, _, _ := strings.Cut(a, "=")
			switch {
			case slices.Contains(rec, a):
				out = append(out, a)
			case slices.Contains(rec, key+"="+emit.SecretValue):
				out = append(out, key+"="+emit.SecretValue)
			}
		}
		return out
	}
	given.ValueArgs, given.ValueYAMLArgs = only(given.ValueArgs, recorded.ValueArgs), only(given.ValueYAMLArgs, recorded.ValueYAMLArgs)
	return given
}

// redefaulted is the note on a file that is not stale, written as these manifests regenerate
// it, whose rules the deployed objects need regenerated once this deploy's removals made in Git
// are defaulted anew (Redefaulted): kapp applies the removals under it, and regenerating it now
// changes nothing, the live objects holding the old values. nil when there is no such removal,
// or the file copies the defaults already.
func (in Regeneration) redefaulted(file string, opts emit.Options, committed []byte, form func(string) string) (*Stale, error) {
	rep, fields, err := Redefaulted(in.Report)
	if err != nil || rep == nil {
		return nil, err
	}
	if _, _, changed, _, err := in.compare(rep, in.Placement, opts, committed, form); err != nil || !changed {
		return nil, err
	}
	return &Stale{File: file, Inputs: unlikeRecorded(opts, in.Given, file), AfterDeploy: fields}, nil
}

// compare regenerates the file the options its header records make of rep, in the form committed
// is compared in (form), and compares it with committed (generated.Changed); a file that differs
// is compared again with the drift the rules keep taken for the defaults it replaced (undrifted),
// and why says when it differs besides.
func (in Regeneration) compare(rep *classify.Report, placement *synth.Placement, opts emit.Options, committed []byte, form func(string) string) (regenerated string, at int, changed bool, why string, _ error) {
	regenerated, err := in.regenerate(rep, placement, opts)
	if err != nil {
		return "", 0, false, "", err
	}
	regenerated = form(regenerated)
	at, changed = generated.Changed(string(committed), regenerated)
	if changed && len(in.Kept) > 0 {
		undrifted, err := in.regenerate(undrifted(rep, in.Kept), placement, opts)
		if err != nil {
			return "", 0, false, "", err
		}
		if _, changed = generated.Changed(string(committed), form(undrifted)); changed {
			var fields []string
			for _, k := range in.Kept {
				fields = append(fields, k.String())
			}
			why = "besides drift the rules keep (" + strings.Join(fields, ", ") + "), "
		}
	}
	return regenerated, at, changed, why, nil
}

// regenerate writes the rules file the options a header records make of the report, placed
// (Placement) when the file was generated from a package.
func (in Regeneration) regenerate(rep *classify.Report, placement *synth.Placement, opts emit.Options) (string, error) {
	// The rules' text does not depend on kapp's verdict: synthesis alone regenerates them. The
	// rules come from check's inputs, the file's shape from the options its header records: a
	// file generated from plain manifests names each resource's namespace, though check renders
	// the package (its rules would follow the install namespace).
	rules := synth.Synthesize(rep, opts.Synth()).Rules
	packaged := len(opts.Packages) > 0 || opts.PackageCR != ""
	if in.Rendered {
		packaged = len(opts.Packages) > 0 && opts.PackageCR == ""
	}
	if packaged && placement != nil && len(rules) > 0 {
		rules, _ = synth.Place(rules, *placement)
	}
	rules, err := synth.AsWritten(rules, rep, opts.Synth().OwnResources)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, rules, emit.Header{Options: opts}); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// undrifted is the report with each kept drift taken for the server's default it replaced: a
// copy from the live object of a field the manifest leaves to the server is what kept it.
func undrifted(report *classify.Report, kept []Kept) *classify.Report {
	rep := *report
	rep.Resources = slices.Clone(rep.Resources)
	for i, r := range rep.Resources {
		var fs []classify.Finding
		for j, f := range r.Findings {
			// kept by a rule of its own, on a field the manifest leaves to the server
			if f.Class == classify.Drift && f.Desired == nil && slices.ContainsFunc(kept, func(k Kept) bool {
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
	return &rep
}

// unlikeRecorded compares the inputs a Regenerate line records with this check's (given): each
// flag and value only one of them has (the namespace as used, inferred or given). The line
// records paths as generate was given them, relative to the directory it ran in, which check
// does not know: check may run elsewhere (a CI job at the repository's root, generate run in the
// package's directory), and every path then differed. Recorded paths are resolved against each
// directory generate may have run in (recordedBases) and compared as files with the paths check
// was given; the directory leaving the fewest differences is taken.
func unlikeRecorded(recorded, given emit.Options, file string) []string {
	rec, giv := inputArgs(recorded), inputArgs(given)
	var best []string
	for i, base := range recordedBases(rec, giv, recorded.OutputFile, file) {
		if out := unlikeFrom(rec, giv, base); i == 0 || len(out) < len(best) {
			best = out
		}
	}
	return best
}

// unlikeFrom is unlikeRecorded with the recorded paths relative to base ("": check's directory).
func unlikeFrom(rec, giv []inputArg, base string) []string {
	var out []string
	left := slices.Clone(giv)
	for _, x := range rec {
		key := x.key(base)
		if i := slices.IndexFunc(left, func(g inputArg) bool { return g.key("") == key }); i >= 0 {
			left = slices.Delete(left, i, i+1)
			continue
		}
		out = append(out, x.String()+" (Regenerate line only)")
	}
	for _, x := range left {
		out = append(out, x.String()+" (this check only)")
	}
	return out
}

// recordedBases are the directories generate may have run in, check's own first: the one where
// the recorded --output-file is file (the rules file check reads), and those where a recorded
// relative path is a path check was given.
func recordedBases(rec, giv []inputArg, outputFile, file string) []string {
	bases := []string{""}
	add := func(abs, rel string) {
		rel = filepath.Clean(rel)
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return // nothing says which directory below the common one generate ran in
		}
		if base, ok := strings.CutSuffix(abs, string(filepath.Separator)+rel); ok && !slices.Contains(bases, base) {
			bases = append(bases, base)
		}
	}
	if outputFile != "" && outputFile != "-" {
		if abs, err := filepath.Abs(file); err == nil {
			add(abs, outputFile)
		}
	}
	for _, r := range rec {
		for _, g := range giv {
			if r.path && g.path && r.flag == g.flag {
				add(g.resolved(""), r.value)
			}
		}
	}
	return bases
}

// inputArg is one input flag of a Regenerate line: "--flag value", or a flag alone.
type inputArg struct {
	flag, value string
	path        bool // value is a path
}

func (a inputArg) String() string {
	if a.value == "" {
		return a.flag
	}
	return a.flag + " " + a.value
}

// key is what a compares as: its flag and resolved value.
func (a inputArg) key(base string) string { return a.flag + " " + a.resolved(base) }

// resolved is a's value, a path made absolute (a relative one against base, "": the working
// directory); anything else as written.
func (a inputArg) resolved(base string) string {
	v := a.value
	if !a.path || v == "-" || filepath.IsAbs(v) {
		return v
	}
	if base != "" {
		return filepath.Join(base, v)
	}
	if abs, err := filepath.Abs(v); err == nil {
		return abs
	}
	return v
}

// pathFlags are the input flags whose values are paths.
var pathFlags = map[string]bool{"--desired": true, "--live": true, "--crd": true, "--ruleset": true, "--package": true, "--values": true, "--package-cr": true}

// inputArgs are the input flags of o as its Regenerate line writes them.
func inputArgs(o emit.Options) []inputArg {
	in := emit.Options{Desired: o.Desired, Live: o.Live, CRDs: o.CRDs, Rulesets: o.Rulesets, Packages: o.Packages, Values: o.Values,
		ValueArgs: o.ValueArgs, ValueYAMLArgs: o.ValueYAMLArgs, PackageCR: o.PackageCR, Namespace: o.Namespace, NoOperational: o.NoOperational}
	var out []inputArg
	args := in.Args()
	for i := 0; i < len(args); i++ {
		if args[i] == "--no-operational" {
			out = append(out, inputArg{flag: args[i]})
			continue
		}
		a := inputArg{flag: args[i], value: args[i+1], path: pathFlags[args[i]]}
		if a.path {
			a.value = filepath.Clean(a.value)
		}
		out = append(out, a)
		i++
	}
	return out
}

// lines are the lines of compared, each with its newline, as difflib diffs them.
func lines(ls []string) []string { return difflib.SplitLines(strings.Join(ls, "\n")) }
