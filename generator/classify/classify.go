package classify

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"unique"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/parallel"
	"github.com/rebasegen/rebasegen/rulesets"
)

// Options configure classification.
type Options struct {
	Rules    *rulesets.Ruleset
	Progress func() // called as each pair is classified, from several goroutines; nil: not called
	// Prepare is desired as kapp deploy prepares it before it diffs it (kappcover: kapp's own
	// code), which is compared with live; nil: the manifest as written.
	Prepare Prepare
	// Rebase is the object kapp's update sends for desired against live: prepared, its rebase
	// rules applied (kappcover: kapp's own code), which the API server's update validation is run
	// on; nil: the manifest as written.
	Rebase Prepare
	// Unruled is the object kapp's update sends for desired without the rule files checked with
	// the package (kapp's built-in rebase rules and the package's own): a refusal of Rebase's
	// object it does not meet is one those rules cause; nil: Rebase holds no rule files.
	Unruled Prepare
	// CRDUpdate is the API server's validation of a CustomResourceDefinition update
	// (cmd/rebasegen hands over the server's own), run on a CRD the manifests change as on any
	// kind's update (updateValidations); nil: a CRD's update is not judged.
	CRDUpdate CRDUpdateValidation
	// KappDefaults and PackageRules say which differing fields kapp's built-in rebase rules and
	// the package's own kapp Configs restore (kappcover: kapp's own code, which a comparison for a
	// controller does not link); nil: none.
	KappDefaults, PackageRules Covers
	// LabelScoped names the selectors kapp's built-in label scoping writes its app label into
	// (kappcover); nil: not checked.
	LabelScoped Scoped
	// NoOperational leaves annotations people stamp at run time (rulesets/operational.yaml)
	// drift, as any other change a person made.
	NoOperational bool
	// Version is how the defaults of the API server's minor version differ from the linked
	// version's (rulesets/defaults); nil: the server runs the linked minor version, or its
	// version is unknown.
	Version *rulesets.VersionDefaults
	// CRDsFrom says how the caller is given CustomResourceDefinitions, as the evidence of a
	// custom resource whose CRD is missing names it; "": the command line's (--crd, capture).
	CRDsFrom string
	// Server is the API server's version (load.Reader.ReadServerVersion), by which the
	// manifests' apiVersions are judged (rulesets/served); nil: not known.
	Server *load.ServerVersion
}

// Scoped returns the paths of the selectors kapp's built-in label scoping rules write its app
// label into on an object. It is called from several goroutines.
type Scoped func(desired *unstructured.Unstructured) []fielddiff.Path

// Prepare returns desired as kapp prepares it before it diffs it against live: its ownership
// labels, label scoping and additional labels added, a copy. It is called from several
// goroutines.
type Prepare func(desired, live *unstructured.Unstructured) (*unstructured.Unstructured, error)

// Covers reports, for each of paths (fields differing between desired as kapp prepared it and
// live), whether a set of kapp rebase rules restores its live value; nil when none does. It is
// called from several goroutines.
type Covers func(desired, live *unstructured.Unstructured, paths []fielddiff.Path) ([]bool, error)

// classifier holds what is shared by all pairs.
type classifier struct {
	names        fieldNames // a worker's own (see Classify)
	rules        *rulesets.Ruleset
	defaults     defaulter
	prepare      Prepare
	rebase       Prepare
	unruled      Prepare
	kappDefaults Covers
	pkgRules     Covers
	hpaTargets   map[pair.Identity]string
	calculated   []compiledField
	injected     []compiledInjection
	// admissionPlugins: fields built-in admission plugins add (rulesets/admission.yaml)
	admissionPlugins []compiledPlugin
	filled           []compiledFilled
	adopted          []compiledAdopted
	operationalKeys  []compiledOperational // nil with Options.NoOperational
	scoped           Scoped
	immutable        []compiledField
	classes          map[string]map[string]any // live StorageClasses by name (storageClasses)
	paths            *pathTable                // shared by the workers

	version         string                  // Options.Version's
	served          *served                 // what the server serves (Options.Server, the CRDs)
	gates           featuregate.FeatureGate // the server's default feature gates (Options.Server)
	versionDefaults []versionDefault        // Options.Version's differences

	crdValidation CRDUpdateValidation // Options.CRDUpdate
	deploy        pair.Deploy         // the set's: kapp deploy's default update strategy
	liveCRDs      crdSchemas          // the inputs' CRD versions the manifests' CRDs change (changedCRDs)
}

type compiledField struct {
	rulesets.Field
	re *regexp.Regexp
}

type compiledInjection struct {
	rulesets.Injection
	re *regexp.Regexp
}

// Classify explains every differing field of every pair.
func Classify(set *pair.Set, opts Options) (*Report, error) {
	c, err := newClassifier(set, opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{Created: set.Created, Deleted: set.Deleted, LiveOnly: set.LiveOnly, CRDs: set.CRDs, Version: opts.Version}
	// Pairs are independent: classify them on every core (performance at fleet scale), each
	// result in its pair's slot so the report's order does not depend on scheduling, and the
	// error returned is the first pair's in input order, as when classifying one by one. Each
	// worker has its own copy of the classifier (the defaulter keeps per-object state); the
	// rest is read-only, and kapp's ytt rebase rules run serialised (kappglobal.SerialYTT).
	res := make([]Resource, len(set.Pairs))
	errs := make([]error, len(set.Pairs))
	parallel.Each(len(set.Pairs), func() func(int) {
		w := *c
		w.names = fieldNames{} // each worker's own
		return func(i int) {
			res[i], errs[i] = w.resource(set.Pairs[i])
			if opts.Progress != nil {
				opts.Progress()
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	pack(res)
	if len(res) > 0 {
		rep.Resources = res
	}
	return rep, nil
}

func newClassifier(set *pair.Set, opts Options) (*classifier, error) {
	rs := opts.Rules
	crds, err := newCRDSchemas(set.CRDs)
	if err != nil {
		return nil, err
	}
	// custom resources are defaulted as the server defaults kapp's update of them: with the CRD
	// this deploy applies first where the manifests declare one (a default it adds or changes
	// reaches them), else the inputs'
	applied, err := appliedCRDs(crds, set.DesiredCRDs)
	if err != nil {
		return nil, err
	}
	c := &classifier{rules: rs, defaults: defaulter{crds: applied, crdsFrom: opts.CRDsFrom}, paths: &pathTable{m: map[string][]fielddiff.Path{}},
		prepare: opts.Prepare, rebase: opts.Rebase, unruled: opts.Unruled, crdValidation: opts.CRDUpdate, kappDefaults: opts.KappDefaults, pkgRules: opts.PackageRules, scoped: opts.LabelScoped, versionDefaults: compileVersion(opts.Version), deploy: set.Deploy}
	if opts.Version != nil {
		c.version = opts.Version.Version
	}
	c.liveCRDs = changedCRDs(crds, applied)
	if c.served, err = newServed(opts.Server, applied, crds); err != nil {
		return nil, err
	}
	c.gates = gatesAt(opts.Server)
	if c.hpaTargets, err = hpaTargets(set); err != nil {
		return nil, err
	}
	c.classes = storageClasses(set)
	for _, f := range rs.Calculated {
		re, _ := rulesets.PathPattern(f.Path) // validated when loaded
		c.calculated = append(c.calculated, compiledField{f, re})
	}
	for _, i := range rs.Injected {
		re, _ := rulesets.PathPattern(i.Path)
		c.injected = append(c.injected, compiledInjection{i, re})
	}
	for _, a := range rs.Admission {
		re, _ := rulesets.PathPattern(a.Path)
		c.admissionPlugins = append(c.admissionPlugins, compiledPlugin{a, re})
	}
	for _, f := range rs.Filled {
		re, _ := rulesets.PathPattern(f.Path)
		c.filled = append(c.filled, compiledFilled{f, re})
	}
	for _, a := range rs.Adoption {
		re, _ := rulesets.PathPattern(a.Path)
		c.adopted = append(c.adopted, compiledAdopted{a, re})
	}
	for _, f := range rs.Immutable {
		re, _ := rulesets.PathPattern(f.Path)
		c.immutable = append(c.immutable, compiledField{f, re})
	}
	for _, o := range rs.Operational {
		if opts.NoOperational {
			break
		}
		re, _ := rulesets.PathPattern(o.Path)
		c.operationalKeys = append(c.operationalKeys, compiledOperational{o, re})
	}
	return c, nil
}

// fieldContext is what the classification of one pair's fields needs.
type fieldContext struct {
	id        pair.Identity
	owners    []owner
	appliers  appliers
	applier   string // appliers.main
	desired   *unstructured.Unstructured
	live      *unstructured.Unstructured
	defaulted *unstructured.Unstructured
	prepared  *typedObject      // defaulted, after the create strategy's PrepareForCreate; nil without one
	stored    *storage          // prepared (or defaulted), after the storage round trip
	prunedAt  *fielddiff.Lookup // a custom resource as its CRD's schema prunes it; nil for other kinds
	crd       string            // that CRD's name
	// whether the API server's validation of kapp's update refuses it, worked out on first use:
	// its CRD's for a custom resource (crdRefusal), its kind's for a built-in kind
	crdRefusal *refusal
	refusal    *refusal
	// whether it refuses the create of kapp's replace of the object (replaceRefused)
	replaceRefusal *refusal
	mechanism      string
	strategy       string // names the create strategy's PrepareForCreate, "" without one
	// what the applier sent (kapp.k14s.io/original; for an object Argo CD syncs, what its last
	// client-side sync applied), nil when unknown; lastApply names the record
	sent      map[string]any
	lastApply lastApply
	// lookups into defaulted and sent (prepared's: prepared.lookup()), nil when those are: one
	// lookup per delta into a long list would otherwise be quadratic (see fielddiff.Lookup)
	defaultedAt, sentAt *fielddiff.Lookup
	manifestAt          *fielddiff.Lookup // into desired, the manifest before kapp prepares it
	// desired as kapp prepares it (its labels added: what its writes hold); desired without Prepare
	kappPrepared *unstructured.Unstructured
	// a custom resource whose CRD the manifests change: that CRD's name and a lookup into the
	// manifest as the CRD the cluster has defaults it (crdDefaultChanged); nil otherwise
	liveCRD   string
	liveCRDAt *fielddiff.Lookup
}

func (c *classifier) resource(p pair.Pair) (Resource, error) {
	res := Resource{Pair: p, Noise: map[string]int{}}
	desired, live, err := p.Objects()
	if err != nil {
		return res, err
	}
	if err := twoHandlers(desired); err != nil {
		return res, err
	}
	// kapp diffs and rebases the manifest with its labels added: its label scoping and ownership
	// labels are no difference, wherever kapp writes them
	prepared := desired.Unstructured
	if c.prepare != nil {
		if prepared, err = c.prepare(desired.Unstructured, live.Unstructured); err != nil {
			return res, fmt.Errorf("%s: %w", desired.Source, err)
		}
	}
	compared, err := fielddiff.Compare(prepared, live.Unstructured)
	if err != nil {
		return res, fmt.Errorf("%s: %w", live.Source, err)
	}
	deltas := compared.Deltas
	fc := fieldContext{id: p.ID, refusal: &refusal{}, replaceRefusal: &refusal{}} // (no normalised live copy: nothing read it, and it cost a tenth of classify)
	if fc.owners, err = owners(live, c.names); err != nil {
		return res, err
	}
	fc.desired, fc.live, fc.kappPrepared = desired.Unstructured, live.Unstructured, prepared
	fc.manifestAt = fielddiff.NewLookup(desired.Object)
	fc.sent = sentManifest(live)
	if fc.sent != nil {
		fc.sentAt = fielddiff.NewLookup(fc.sent)
	}
	var declaredSet *fieldpath.Set
	var declaredErr error
	declaredDone := false
	declared := func() *fieldpath.Set {
		if !declaredDone {
			declaredDone = true
			declaredSet, declaredErr = compared.Declared()
		}
		return declaredSet
	}
	fc.appliers = findAppliers(fc.owners, c.rules, applierObject{annotations: live.GetAnnotations(), declared: declared, sent: fc.sentAt, live: fielddiff.NewLookup(live.Object)})
	if declaredErr != nil {
		return res, fmt.Errorf("%s: %w", desired.Source, declaredErr)
	}
	res.Applier = fc.appliers.main
	if res.Applier == "" && !res.Live.ManagedFields {
		_, original := live.GetAnnotations()[kappconv.Original]
		labels := live.GetLabels()
		_, app := labels[kappconv.AppLabel]
		_, assoc := labels[kappconv.AssociationLabel]
		res.KappMarked = original || app || assoc
	}
	fc.applier = fc.appliers.main // every explanation names the one applier
	fc.lastApply = kappApply
	if fc.sent == nil {
		if fc.sent = argoSent(live, c.rules, fc.applier); fc.sent != nil {
			fc.sentAt, fc.lastApply = fielddiff.NewLookup(fc.sent), argoSync
		}
	}
	dr, ok, err := c.defaults.defaulted(desired.Unstructured)
	if le := (*load.Error)(nil); errors.As(err, &le) && le.Source == (load.Source{}) {
		le.Source = desired.Source
		if le.Steps != nil { // a package's field: the template's line that wrote it
			le.Written, _ = p.Desired.WrittenAt(le.Steps...)
		}
		return res, le
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", desired.Source, err)
	}
	fc.mechanism = dr.mechanism
	res.NoCRD = dr.noCRD
	if ok {
		fc.defaulted, fc.prepared, fc.stored, fc.strategy = dr.out, dr.prepared, dr.stored, dr.strategy
		fc.defaultedAt = fielddiff.NewLookup(fc.defaulted.Object)
		if dr.pruned != nil {
			fc.prunedAt, fc.crd, fc.crdRefusal = fielddiff.NewLookup(dr.pruned.Object), dr.crd, &refusal{}
		}
		if s := c.liveCRDs.lookup(desired.GroupVersionKind()); s != nil {
			if out, err := s.apply(desired.Unstructured); err == nil { // over its budget: the defaulting stage says so
				fc.liveCRD, fc.liveCRDAt = s.crdName, fielddiff.NewLookup(out.Object)
			}
		}
	}
	var findings []fielddiff.Delta
	for _, d := range deltas {
		if d.Noise == "" && versionName(desired.Unstructured, live.Unstructured, d.Path) {
			d.Noise = fielddiff.NoiseKapp
		}
		if d.Noise != "" {
			res.Noise[d.Noise]++
			continue
		}
		findings = append(findings, d)
	}
	paths := make([]fielddiff.Path, len(findings))
	for i, d := range findings {
		paths[i] = d.Path
	}
	var byKapp, byPkg []bool
	if c.kappDefaults != nil {
		if byKapp, err = c.kappDefaults(prepared, live.Unstructured, paths); err != nil {
			return res, fmt.Errorf("%s: %w", p.ID, err)
		}
	}
	if c.pkgRules != nil {
		if byPkg, err = c.pkgRules(prepared, live.Unstructured, paths); err != nil {
			return res, fmt.Errorf("%s: package rules: %w", p.ID, err)
		}
	}
	res.Findings = make([]Finding, 0, len(findings)+3) // exactly: a fleet's findings are a large part of what a run keeps
	for _, artifact := range []func(d, l *unstructured.Unstructured) (Finding, bool){stringDataMoved, identity} {
		if f, ok := artifact(desired.Unstructured, live.Unstructured); ok {
			f.Path = c.paths.share(f.Path)
			res.Findings = append(res.Findings, f)
		}
	}
	for _, f := range association(desired.Unstructured, prepared, live.Unstructured) {
		f.Path = c.paths.share(f.Path)
		res.Findings = append(res.Findings, f)
	}
	for _, f := range slices.Concat(kappNonce(fc, desired.Source.String()), kappAnnotationsFromGit(fc), c.kappLabelsFromGit(fc, prepared)) {
		f.Path = c.paths.share(f.Path)
		res.Findings = append(res.Findings, f)
	}
	if f, ok := c.unservedKept(fc); ok {
		f.Path = c.paths.share(f.Path)
		res.Findings = append(res.Findings, f)
	}
	if f, ok := c.replicasAsDeclared(fc, deltas); ok {
		f.Path = c.paths.share(f.Path)
		res.Findings = append(res.Findings, f)
	}
	for _, f := range slices.Concat(c.scopingFails(fc, prepared), c.kappLabelsOnTakeover(fc, prepared), reorderedInGit(fc)) {
		f.Path = c.paths.share(f.Path)
		res.Findings = append(res.Findings, f)
	}
	for i, d := range findings {
		f := c.field(fc, d)
		f.DependsOn = c.dependentOn(p.ID, f)
		f.CoveredByKappDefault = byKapp != nil && byKapp[i]
		f.CoveredByPackageRules = byPkg != nil && byPkg[i]
		if f.Covered() && !f.Pruned {
			// kapp's or the package's own rules already end the difference: the manifest needs
			// no change, and generate, which rules nothing covered, says none (newcomer7 N7-9 c)
			f.Warning = ""
		}
		secret := isSecretData(p.ID, d.Path) || isLastApplied(d.Path)
		if secret {
			f.Desired, f.Live = mask(f.Desired), mask(f.Live)
		}
		gitToo(fc, d, &f, secret) // after masking: its evidence quotes the values
		// The same evidence recurs across a fleet's resources: keep one copy of each text.
		f.Evidence, f.Warning = unique.Make(f.Evidence).Value(), unique.Make(f.Warning).Value()
		f.Path = c.paths.share(f.Path)
		res.Findings = append(res.Findings, f)
	}
	// after the fields: the annotations kapp's deploy removes are among their findings
	if f, ok := emptyAnnotations(desired.Unstructured, live.Unstructured, RevertedAnnotations(res.Findings)); ok {
		f.Path = c.paths.share(f.Path)
		res.Findings = slices.Insert(res.Findings, 0, f)
	}
	c.consequences(fc, res.Findings)
	crdDefaultsSettled(fc, res.Findings) // after consequences: a drift it makes is kapp's reason to update
	c.crdReplacements(fc, res.Findings)  // after consequences: a drift it finds is one kapp reverts
	return res, nil
}
