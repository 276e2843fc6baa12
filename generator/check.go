package generator

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/rulefiles"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/valuesource"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Checked is what `rebasegen check` found: the verdict on the rules in force, and lint's findings.
type Checked struct {
	*verdict.Verdict
	// InferredNamespace: the namespace inferred for desired objects without one (no -n given).
	InferredNamespace string
	// NamespaceUnused: -n was given, yet every namespaced desired object declares its namespace.
	NamespaceUnused bool
	// At: where each drift, pending change and pending create (Path "") was made, as far as the
	// inputs tell: the desired document when it is a file's; for a package's rendering (its lines
	// are no file's), a pending value the line of the one data value feeding it (valuesource.Sources).
	// Absent: nowhere known.
	At              map[valuesource.Field]load.Source
	Unmanaged, Live int      // live objects without managedFields, of all (pair.Set's)
	Uncaptured      int      // of Unmanaged, those not from a file rebasegen capture wrote (pair.Set's)
	Redacted        []string // pair.Set's
	Lint            []lint.Finding
	// LintSkipped: lint could not read the rule files; the gate does not fail on it.
	LintSkipped error

	VersionWarning string // pair.Set's
	// StaleUnjudged: the -n the namespaced desired objects pair with, when another was given
	// (wrongNamespace): the rule files are not judged stale.
	StaleUnjudged string
	// Unlike are the generated rule files whose Regenerate line records other inputs than this
	// check's: said beside every change made in Git kapp's deploy fails on (Findings).
	Unlike []verdict.Unlike
	// Deferred are the generated files that regenerating from these manifests would change, up
	// to date with what kapp last applied (verdict.StaleFiles): not stale.
	Deferred []verdict.Stale
}

// Check runs kapp's engine with the package's own rules plus the rule files, regenerates every
// rule file rebasegen generated to see whether it is stale, and lints the rule files.
func Check(in Inputs, ruleFiles []string) (*Checked, error) {
	if err := in.stdinOnce(ruleFiles); err != nil {
		return nil, err
	}
	if err := load.TotalSize(append(in.paths(), ruleFiles...)...); err != nil {
		return nil, err
	}
	in = in.withReader()
	in.RuleFiles = ruleFiles
	files, err := readRuleFiles(in, ruleFiles)
	if err != nil {
		return nil, err
	}
	// prepared with the rule files' Configs, as kapp prepares them, and the generated ones among
	// the desired inputs: a rules file in the package's directory is in force too (newcomer17
	// N17-3: the update validation judged the object kapp sends without its rules)
	a, err := analyze(in, func(s *pair.Set) []load.Object { return ruleConfigs(s, files) })
	if err != nil {
		return nil, unlikeError(refusedRulesError(err, in, files), in, ruleFiles)
	}
	if err := verdict.RulesOnly(a.Set); err != nil {
		return nil, err
	}
	if err := files.Refused(in.Reader); err != nil {
		return nil, err
	}
	return a.check(files, ruleFiles)
}

// recordable are the inputs as a Regenerate line records them, the namespace as given.
func (in Inputs) recordable() emit.Options {
	return emit.Options{Desired: in.Desired, Live: in.Live, CRDs: in.CRDs, Rulesets: in.Rulesets, Packages: in.Package.Dirs,
		Values: in.Package.ValuesFiles, ValueArgs: in.Package.Values, ValueYAMLArgs: in.Package.ValuesYAML, PackageCR: in.Package.CR,
		Namespace: in.Namespace, NoOperational: in.NoOperational}
}

// unlikeError is err, an input refused (a package's rendering, an object the decoder refuses),
// saying which generated rule files record other inputs than this check's (verdict.Unlike): the
// values the rules were generated with, forgotten, are the likeliest cause. err as it is when
// none does, or the rule files cannot be read.
func unlikeError(err error, in Inputs, ruleFiles []string) error {
	gen, gerr := verdict.ReadGenerated(in.Reader, ruleFiles)
	unlike := verdict.UnlikeFiles(gen, in.recordable(), false)
	if gerr != nil || len(unlike) == 0 {
		return err
	}
	notes := make([]string, len(unlike))
	for i, u := range unlike {
		notes[i] = u.String()
	}
	return noted{err, strings.Join(notes, "\n")}
}

// noted is an error with a note on lines of its own below it.
type noted struct {
	error
	note string
}

func (n noted) Error() string { return strings.TrimRight(n.error.Error(), "\n") + "\n" + n.note }
func (n noted) Unwrap() error { return n.error }

// readRuleFiles reads the rule files kapp will apply with the package: those not read as desired
// inputs already.
func readRuleFiles(in Inputs, ruleFiles []string) (rulefiles.Files, error) {
	return rulefiles.Read(in.Reader, ruleFiles, in.Package, in.inForce)
}

// Check judges the rule files against the analysis: each pair is classified once (by Analyze,
// with the package's own Configs preparing the resources) and verified once, with the package's
// rules plus the rule files.
func (a *Analysis) Check(ruleFiles []string) (*Checked, error) {
	files, err := readRuleFiles(a.Inputs, ruleFiles)
	if err != nil {
		return nil, err
	}
	if err := files.Refused(a.Inputs.Reader); err != nil {
		return nil, err
	}
	return a.check(files, ruleFiles)
}

func (a *Analysis) check(files rulefiles.Files, ruleFiles []string) (*Checked, error) {
	// The rules kapp will apply: the package's own, those of files rebasegen generated among the
	// desired inputs, and the rule files.
	configs := a.inForce(files)
	rules := files.Rules(configs, a.Inputs.Reader)
	if err := verdict.YTTWithinBudget(rules, a.Set.Pairs); err != nil {
		return nil, err
	}
	vd, err := verdict.Judge(verdict.Input{Report: a.Report, Set: a.Set, Configs: configs, Rules: rules,
		Deploy: verdict.DeployRulesOf(configs, a.Inputs.Reader), Stage: a.Inputs.Progress.stage})
	if err != nil {
		return nil, lintedError(verdict.NameYTTRule(err, rules), a.Inputs, files)
	}
	c := &Checked{Verdict: vd, InferredNamespace: a.Set.InferredNamespace, NamespaceUnused: a.Set.NamespaceUnused, Unmanaged: a.Set.Unmanaged, Uncaptured: a.Set.Uncaptured, Live: a.Set.Live, Redacted: a.Set.Redacted}
	if c.At, err = valuesource.Located(a.Inputs.Package, a.Inputs.Reader, a.Report, a.Set, vd); err != nil {
		return nil, err
	}
	in := a.Inputs
	regen := verdict.Regeneration{Reader: in.Reader, Report: a.Report, Kept: vd.DriftKept, Given: in.recordable()}
	regen.Given.Namespace = cmp.Or(in.Namespace, a.Set.InferredNamespace)
	secrets, err := a.Set.SecretValues()
	if err != nil {
		return nil, err
	}
	derived, err := SecretDerivedArgs(a.Inputs)
	if err != nil {
		return nil, err
	}
	regen.Given = regen.Given.WithoutSecretValues(secrets, derived)
	gen, err := verdict.ReadGenerated(in.Reader, ruleFiles) // read once: the inputs unlike and the stale pass
	if err != nil {
		return nil, err
	}
	c.Unlike = verdict.UnlikeFiles(gen, regen.Given, true)
	if regen.Placement, _, err = a.placement(); err != nil {
		return nil, err
	}
	if regen.Placement == nil {
		if regen.Placement, err = a.renderedPlacement(); err != nil {
			return nil, err
		}
		regen.Rendered = regen.Placement != nil
	}
	regen.Deployed = a.deployed(files.Configs, regen.Placement)
	regen.GitChanges = len(vd.Pending) > 0 || len(vd.Unpaired) > 0 || len(vd.PendingDeletes) > 0
	regen.Residual, regen.Hidden = vd.Residual, vd.Hidden
	if c.StaleUnjudged = wrongNamespace(vd.Unpaired); c.StaleUnjudged == "" {
		if c.Stale, c.Deferred, err = verdict.StaleFiles(regen, gen); err != nil {
			return nil, err
		}
	}
	c.VersionWarning = a.Set.VersionWarning
	if len(ruleFiles) > 0 {
		c.Lint, c.LintSkipped = a.lint(files, nil)
	}
	return c, nil
}

// deployed returns the classification of the live objects against what kapp last applied to each
// (kapp.k14s.io/original), the package's own rules and the rule files' Configs preparing them as
// in this check: the deployed state, computed once when first asked for. Its rules are placed as
// placement places this check's (the objects in its namespace follow the install namespace). In CI the live
// objects are captured once and the manifests come from the pull request, so a change made in Git
// is not deployed yet: rules generated for the deployed objects stay right until it is (the
// rules regenerated from the pull request's manifests before the deploy would lose those the
// deployed objects need: a new container's server defaults are not in the capture). nil when no
// paired live object records what kapp applied, or the live objects cannot be paired so.
func (a *Analysis) deployed(rules []load.Object, placement *synth.Placement) func() *verdict.Deployed {
	var (
		once sync.Once
		dep  *verdict.Deployed
	)
	return func() *verdict.Deployed {
		once.Do(func() {
			var live []load.Doc
			for _, p := range a.Set.Pairs {
				live = append(live, p.Live)
			}
			live = slices.Concat(live, a.Set.Deleted, a.Set.LiveOnly)
			if len(live) == 0 {
				return
			}
			set, err := pair.Build(nil, live, pair.Options{Namespace: cmp.Or(a.Inputs.Namespace, a.Set.InferredNamespace), Rules: a.Ruleset})
			if err != nil || len(set.Pairs) == 0 {
				return // no live object records what kapp applied: there is no deployed state to compare with
			}
			if set.Pairs, err = verdict.AfterDeploy(set.Pairs, a.Report); err != nil {
				return
			}
			// the rules are the pull request's, as the package deploys them; CRDs include --crd's
			set.Configs, set.GeneratedConfigs, set.CRDs = a.Set.Configs, a.Set.GeneratedConfigs, a.Set.CRDs
			in := a.Inputs
			in.Progress = nil
			rep, err := classifySet(in, set, a.Ruleset, rules)
			if err != nil {
				return
			}
			dep = &verdict.Deployed{Report: rep}
			if placement != nil {
				var desired []load.Doc
				for _, p := range set.Pairs {
					desired = append(desired, p.Desired)
				}
				if dep.Placement, err = synth.PlacementOf(desired, func(d load.Doc) bool { return d.Namespace == placement.Namespace }); err != nil {
					dep = nil
				}
			}
		})
		return dep
	}
}

// Findings are the verdict's findings (verdict.Verdict.Findings), drift, pending changes and
// pending creates located where they were made (At), after the warning that the server's minor
// version has no defaults data, if it has none: a warning in every format, never failing the gate.
func (c *Checked) Findings(g verdict.Gate) []verdict.Finding {
	fs := located(verdict.AfterVersionWarning(c.VersionWarning, c.Verdict.Findings(g)), c.At)
	for i, f := range fs {
		if f.Kind != verdict.KindImmutable && f.Kind != verdict.KindDeployFails {
			continue
		}
		// a value the package renders without the inputs the rules were generated with (an
		// image left empty) is refused rightly, and unexplained
		for _, u := range c.Unlike {
			fs[i].Evidence += "; " + u.String()
		}
	}
	return fs
}

// located is fs with drift, pending changes and pending creates located where they were made.
func located(fs []verdict.Finding, at map[valuesource.Field]load.Source) []verdict.Finding {
	for i, f := range fs {
		if f.Kind != verdict.KindDrift && f.Kind != verdict.KindPending && f.Kind != verdict.KindImmutable && f.Kind != verdict.KindPendingCreate && f.Kind != verdict.KindUnjudged &&
			f.Kind != verdict.KindOwnership && f.Kind != verdict.KindDeployFails && f.Kind != verdict.KindUnserved {
			continue
		}
		if src, ok := at[valuesource.Field{Resource: f.Resource, Path: f.Path}]; ok {
			fs[i].File, fs[i].Line = src.File, src.Line
		}
	}
	return fs
}

// wrongNamespace is the namespace the live objects hold the unpaired desired objects in when -n
// (given or inferred) left them unpaired: "" when none is. The rules regenerated from such a check
// lack the rules of every object it did not pair, and a package's kind-wide rule comes back pinned
// to the one resource the deployed state pairs (newcomer7 N7-6: "stale ... undo the edit" for rules
// nobody edited): -n is what to fix, not the rules.
func wrongNamespace(unpaired []verdict.Unpaired) string {
	for _, u := range unpaired {
		if len(u.LiveIn) > 0 {
			return u.LiveIn[0]
		}
	}
	return ""
}

// inForce are the rules kapp applies with the package: those among the desired inputs, and the
// rule files' Configs that none of them holds already (a rendered copy of a rules file among the
// manifests is the file, in force once).
func (a *Analysis) inForce(files rulefiles.Files) []load.Object {
	return slices.Concat(a.Set.Configs, ruleConfigs(a.Set, files))
}

// ruleConfigs are the Configs in force besides the package's own: the generated ones among the
// desired inputs, then those of the rule files they do not hold.
func ruleConfigs(s *pair.Set, files rulefiles.Files) []load.Object {
	configs := s.InForce()
	desired := len(configs)
	for _, c := range files.Configs {
		if !rulefiles.Held(configs[:desired], c) {
			configs = append(configs, c)
		}
	}
	return configs[len(s.Configs):]
}

// inForce reports whether the rules of the --rules path p are in force from there: not when every
// file of it is a desired input's already (rulefiles.ReadAsDesired).
func (in Inputs) inForce(p string) bool {
	return !rulefiles.ReadAsDesired(in.Reader, p, slices.Concat(in.Desired, in.Package.Dirs))
}
