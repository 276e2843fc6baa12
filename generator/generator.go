// Package generator wires the stages together: load -> pair -> fielddiff -> classify -> synth
// -> emit, with verify reading the result. Each stage is a package of its own; this package is
// the only one that imports them all, and no stage imports it.
//
// An Analysis holds the inputs loaded, paired and classified once; Explain, Generate, Check and
// Lint are views over it, so a command that needs several of them (check: residual ghost diffs,
// stale generated files and lint) pays for loading and classification once.
package generator

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/rulefiles"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/rulesets"
)

// Inputs are the inputs every command shares.
type Inputs struct {
	Desired   []string // files, directories or "-"; empty: recover from kapp.k14s.io/original
	Live      []string
	CRDs      []string          // extra CustomResourceDefinitions for schema defaulting
	Rulesets  []string          // user ruleset files
	Namespace string            // for namespaced desired objects without one
	Package   yttrender.Package // a ytt package rendered into desired objects
	// Reader reads every input file, once for stdin and pipes (nil: a Reader without stdin).
	Reader   *load.Reader
	Progress Progress // nil: nobody listens
	// Cost: generate also times kapp's diff of a sample of the verified pairs without the rules,
	// for Verification.CostSummary (a timing: it varies from run to run).
	Cost bool
	// NoOperational: annotations people stamp at run time (rulesets/operational.yaml) are drift.
	NoOperational bool
	// ServerVersion is the version of the API server the live objects come from (vX.Y.Z); empty:
	// the server-version.json beside the --live files, else unknown.
	ServerVersion string
	// CRDUpdate is the API server's validation of a CustomResourceDefinition update, run on every
	// CRD the manifests change (classify.CRDUpdateValidation: k8s.io/apiextensions-apiserver
	// pkg/apis/apiextensions/validation ValidateCustomResourceDefinitionUpdate, which
	// cmd/rebasegen passes; its package links grpc, which the library does not). nil: a refused
	// CRD update (a stored version dropped, a default its schema rejects) is not found, and so
	// any change made in Git to a CRD under kapp.k14s.io/update-strategy fallback-on-replace
	// fails the gate: kapp deletes the CRD, and every custom resource of it, wherever the server
	// refuses the update, which nothing then judges.
	CRDUpdate classify.CRDUpdateValidation
	// RuleFiles are the rules files a desired input may hold a rendered copy of (check's --rules,
	// generate's --output-file): a Config of the desired inputs holding exactly the rules of one
	// rebasegen generated is that file's, not the package's own (rulefiles.MarkRenderedCopies).
	RuleFiles []string
}

// withReader returns in with a Reader: one per run, so that stdin and pipes are read once.
func (in Inputs) withReader() Inputs {
	if in.Reader == nil {
		in.Reader = load.NewReader(nil)
	}
	return in
}

// paths are every file and directory the inputs name.
func (in Inputs) paths() []string {
	out := slices.Concat(in.Desired, in.Live, in.CRDs, in.Rulesets, in.Package.Dirs, in.Package.ValuesFiles)
	if in.Package.CR != "" {
		out = append(out, in.Package.CR)
	}
	return out
}

// Progress hears how far a run is, item by item: stage is "classify" (pairs), "verify" (pairs
// whose differences are all ghosts) or "mutation checks"; done counts up to total. It is called
// from several goroutines.
type Progress func(stage string, done, total int)

// stage returns the callback for one stage, counting calls; nil when nobody listens.
func (p Progress) stage(name string, total int) func() {
	if p == nil {
		return nil
	}
	var done atomic.Int64
	return func() { p(name, int(done.Add(1)), total) }
}

// Analysis is the inputs loaded, paired and classified, once.
type Analysis struct {
	Inputs  Inputs
	Set     *pair.Set         // pairs, created and deleted objects, CRDs, the package's own Configs
	Ruleset *rulesets.Ruleset // built-in rulesets plus the user's
	Report  *classify.Report  // every differing field of every pair, classified
	// placed are the documents the package rendered without a namespace: kapp places them into
	// the namespace it deploys to, wherever the package is installed
	placed map[load.Source]bool
	// bare are the --desired documents without a namespace: a package rendered outside
	// rebasegen (ytt -f config | rebasegen check -d -) renders its objects so, and kapp-controller
	// places them into the install namespace as it places the package's (renderedPlacement)
	bare map[load.Source]bool

	synthesized map[synth.Options]*Generated // rules per option set, without verification
}

// Analyze loads, pairs and classifies the inputs.
func Analyze(in Inputs) (*Analysis, error) { return analyze(in, nil) }

// analyze is Analyze, with the Configs kapp deploys with the package besides its own (check's,
// lint's), which rules says of the set loaded: kapp reads every Config among the files it deploys
// (cmd/app/deploy.go newResources: NewConfFromResourcesWithDefaults, then
// LabeledResources.Prepare), so their ownership and label scoping rules and additional labels
// prepare each resource as the package's own do, and their rebase rules make the object kapp's
// update sends, which the API server's update validation judges. Their rebase rules are not the
// package's: classification's coverage stays the package's.
func analyze(in Inputs, rules func(*pair.Set) []load.Object) (*Analysis, error) {
	in = in.withReader()
	set, rs, placed, bare, err := loadSet(in)
	if err != nil {
		return nil, err
	}
	if in.Package.CR != "" {
		if err := kappControllerAccepts(set.InForce()); err != nil {
			return nil, err
		}
	}
	var deployed []load.Object
	if rules != nil {
		deployed = rules(set)
	}
	rep, err := classifySet(in, set, rs, deployed)
	if err != nil {
		return nil, err
	}
	return &Analysis{Inputs: in, Set: set, Ruleset: rs, Report: rep, placed: placed, bare: bare}, nil
}

// classifySet classifies every differing field of every pair of set, prepared as analyze says.
func classifySet(in Inputs, set *pair.Set, rs *rulesets.Ruleset, rules []load.Object) (*classify.Report, error) {
	// classification runs the package's own rules: its ytt rules within a budget first
	own := verdict.Rules(set.Configs, in.Reader)
	if err := verdict.YTTWithinBudget(own, set.Pairs); err != nil {
		return nil, err
	}
	opts, err := kappcover.Covers(set.Configs, rules)
	if err != nil {
		return nil, err
	}
	scoped, err := kappcover.LabelScoped()
	if err != nil {
		return nil, err
	}
	sv, err := in.Reader.ReadServerVersion(in.ServerVersion, in.Live)
	if err != nil {
		return nil, err
	}
	vd, warning, err := classify.VersionDefaults(sv)
	if err != nil {
		return nil, err
	}
	set.VersionWarning = warning
	opts.Rules, opts.Progress, opts.CRDUpdate, opts.LabelScoped = rs, in.Progress.stage("classify", len(set.Pairs)), in.CRDUpdate, scoped
	opts.NoOperational, opts.Version, opts.Server = in.NoOperational, vd, sv
	rep, err := classify.Classify(set, opts)
	if err != nil {
		fieldLine(err, in.Reader)
		return nil, verdict.NameYTTRule(err, own)
	}
	return rep, nil
}

// fieldLine gives an input error naming a field the field's line in the file as written, where
// the error locates it (load.Error's Steps): a value the decoder refuses named its document's
// line only (newcomer15 N15-6).
func fieldLine(err error, rd *load.Reader) {
	if le := (*load.Error)(nil); errors.As(err, &le) && le.Steps != nil && le.Line == 0 {
		if line, ok := lint.NewLines(rd).Found(load.Object{Source: le.Source}, le.Steps...); ok {
			le.Line = line
		}
	}
}

// loadSet reads and pairs the inputs; placed are the package's documents without a namespace,
// bare the --desired ones.
func loadSet(in Inputs) (_ *pair.Set, _ *rulesets.Ruleset, placed, bare map[load.Source]bool, err error) {
	if err := load.TotalSize(in.paths()...); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := in.stdinOnce(nil); err != nil {
		return nil, nil, nil, nil, err
	}
	rs, err := load.Rulesets(in.Reader, in.Rulesets)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for _, p := range in.Desired {
		if p != "-" && load.IsCaptureDir(p) {
			return nil, nil, nil, nil, fmt.Errorf("--desired %s: %s: it goes to --live; --desired takes the manifests (the package's: --package; capture's recovery of what kapp last applied: --desired %s)",
				p, load.CaptureDirIs, filepath.Join(p, load.CaptureDesired))
		}
	}
	desired, err := load.Inputs("--desired", in.Desired, in.Reader)
	if err != nil {
		return nil, nil, nil, nil, rulefiles.YTTHint(err, in.Reader, "--desired", in.Desired)
	}
	bare = withoutNamespace(desired)
	if err := rulefiles.SecretsAsDesired(desired); err != nil {
		return nil, nil, nil, nil, err
	}
	rendered, err := in.Package.RenderInput(in.Reader)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	placed = withoutNamespace(rendered)
	desired = append(desired, rendered...)
	if err := rulefiles.MarkRenderedCopies(in.Reader, desired, in.RuleFiles); err != nil {
		return nil, nil, nil, nil, err
	}
	livePaths, crdPaths, err := load.CaptureDirs(in.Live, in.CRDs)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	live, err := load.Inputs("--live", livePaths, in.Reader)
	if err != nil {
		return nil, nil, nil, nil, rulefiles.YTTHint(err, in.Reader, "--live", livePaths)
	}
	captured, err := load.CapturedLive(in.Reader, live)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	crds, err := load.Docs(crdPaths, in.Reader)
	if err != nil {
		return nil, nil, nil, nil, rulefiles.YTTHint(err, in.Reader, "--crd", crdPaths)
	}
	if err := load.Swapped(desired, live); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := load.LiveAsDesired(desired); err != nil {
		return nil, nil, nil, nil, err
	}
	scope, err := pair.NewScope(rs, crds)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := load.ManifestsAsLive(live, scope.ClusterScoped); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := load.GivenTwice(in.Desired, in.Live); err != nil {
		return nil, nil, nil, nil, err
	}
	intoNs, mapNs, err := in.Package.DeployNamespaces(in.Reader)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	deploy := pair.Deploy{IntoNamespace: intoNs, MapNamespaces: mapNs, From: in.Package.CR}
	if err := kappDeployAccepts(in.Package, in.Reader, rs, &deploy); err != nil {
		return nil, nil, nil, nil, err
	}
	set, err := pair.Build(desired, live, pair.Options{Namespace: in.Namespace, Rules: rs, Deploy: deploy})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for _, l := range live {
		if !l.ManagedFields {
			set.Unmanaged++
			if !captured[l.Source.File] {
				set.Uncaptured++
			}
		}
	}
	set.Live = len(live)
	set.CRDs = append(set.CRDs, crds...)
	return set, rs, placed, bare, nil
}

// withoutNamespace are the sources of the documents of docs that declare no namespace; nil when none.
func withoutNamespace(docs []load.Doc) map[load.Source]bool {
	var out map[load.Source]bool
	for _, d := range docs {
		if d.Namespace == "" {
			if out == nil {
				out = map[load.Source]bool{}
			}
			out[d.Source] = true
		}
	}
	return out
}

// Explain classifies every differing field of every pair.
func Explain(in Inputs) (*classify.Report, *pair.Set, error) {
	a, err := Analyze(in)
	if err != nil {
		return nil, nil, err
	}
	if err := verdict.RulesOnly(a.Set); err != nil {
		return nil, nil, err
	}
	if err := verdict.KappWrittenReferences(a.Report, a.Set.InForce()); err != nil {
		return nil, nil, err
	}
	return a.Report, a.Set, nil
}
