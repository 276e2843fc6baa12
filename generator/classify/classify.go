package classify

import (
	"fmt"
	"regexp"
	"strings"
	"unique"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/parallel"
	"github.com/rebasegen/rebasegen/rulesets"
)

// Options configure classification.
type Options struct {
	Rules    *rulesets.Ruleset
	Progress func() // called as each pair is classified, from several goroutines; nil: not called
}

// classifier holds what is shared by all pairs.
type classifier struct {
	rules        *rulesets.Ruleset
	defaults     defaulter
	kappDefaults rebaser
	pkgRules     rebaser
	hpaTargets   map[pair.Identity]string
	calculated   []compiledField
	injected     []compiledInjection
	// admissionPlugins: fields built-in admission plugins add (rulesets/admission.yaml)
	admissionPlugins []compiledPlugin
	filled           []compiledFilled
	adopted          []compiledAdopted
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
	c, err := newClassifier(set, opts.Rules)
	if err != nil {
		return nil, err
	}
	rep := &Report{Created: set.Created, Deleted: set.Deleted}
	// Pairs are independent: classify them on every core (performance at fleet scale), each
	// result in its pair's slot so the report's order does not depend on scheduling, and the
	// error returned is the first pair's in input order, as when classifying one by one. Each
	// worker has its own copy of the classifier (the defaulter keeps per-object state); the
	// rest is read-only, and kapp's ytt rebase rules run serialised (kappglobal.SerialYTT).
	res := make([]Resource, len(set.Pairs))
	errs := make([]error, len(set.Pairs))
	parallel.Each(len(set.Pairs), func() func(int) {
		w := *c
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
	sharePaths(res)
	if len(res) > 0 {
		rep.Resources = res
	}
	return rep, nil
}

// sharePaths makes findings of the same path share one copy of it. Performance: a fleet repeats a
// few hundred paths across thousands of resources, and the report stays live while kapp's engine
// verifies the rules, which allocates heavily: every garbage collection then scans every copy.
func sharePaths(res []Resource) {
	paths := map[string]fielddiff.Path{}
	for i := range res {
		for j := range res[i].Findings {
			f := &res[i].Findings[j]
			k := f.Path.String()
			if p, ok := paths[k]; ok {
				f.Path = p
			} else {
				paths[k] = f.Path
			}
		}
	}
}

func newClassifier(set *pair.Set, rs *rulesets.Ruleset) (*classifier, error) {
	crds, err := newCRDSchemas(set.CRDs)
	if err != nil {
		return nil, err
	}
	c := &classifier{rules: rs, defaults: defaulter{crds: crds}}
	if c.hpaTargets, err = hpaTargets(set); err != nil {
		return nil, err
	}
	if c.kappDefaults, err = newRebaser(nil, false); err != nil {
		return nil, err
	}
	if len(set.Configs) > 0 {
		if c.pkgRules, err = newRebaser(set.Configs, true); err != nil {
			return nil, err
		}
	}
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
	stored    *unstructured.Unstructured // defaulted, after the storage round trip
	mechanism string
	sent      map[string]any // what the applier sent (kapp.k14s.io/original), nil when unknown
	// lookups into defaulted, stored and sent, nil when those are: one lookup per delta into a
	// long list would otherwise be quadratic (see fielddiff.Lookup)
	defaultedAt, storedAt, sentAt *fielddiff.Lookup
}

func (c *classifier) resource(p pair.Pair) (Resource, error) {
	res := Resource{Pair: p, Noise: map[string]int{}}
	desired, live, err := p.Objects()
	if err != nil {
		return res, err
	}
	deltas, err := fielddiff.Diff(desired.Unstructured, live.Unstructured)
	if err != nil {
		return res, fmt.Errorf("%s: %w", live.Source, err)
	}
	fc := fieldContext{id: p.ID} // (no normalised live copy: nothing read it, and it cost a tenth of classify)
	if fc.owners, err = owners(live); err != nil {
		return res, err
	}
	declaredSet, err := fielddiff.Declared(desired.Unstructured)
	if err != nil {
		return res, fmt.Errorf("%s: %w", desired.Source, err)
	}
	fc.appliers = findAppliers(fc.owners, c.rules, declaredSet)
	fc.desired, fc.live = desired.Unstructured, live.Unstructured
	res.Applier = fc.appliers.main
	fc.applier = fc.appliers.main // admission evidence names the main applier
	fc.sent = sentManifest(live)
	var ok bool
	if fc.defaulted, fc.stored, fc.mechanism, ok, err = c.defaults.defaulted(desired.Unstructured); err != nil {
		return res, fmt.Errorf("%s: %w", desired.Source, err)
	} else if !ok {
		fc.defaulted = nil
	}
	if fc.defaulted != nil {
		fc.defaultedAt = fielddiff.NewLookup(fc.defaulted.Object)
	}
	if fc.stored != nil {
		fc.storedAt = fielddiff.NewLookup(fc.stored.Object)
	}
	if fc.sent != nil {
		fc.sentAt = fielddiff.NewLookup(fc.sent)
	}
	var findings []fielddiff.Delta
	for _, d := range deltas {
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
	byKapp, err := c.kappDefaults.covered(desired.Unstructured, live.Unstructured, paths)
	if err != nil {
		return res, fmt.Errorf("%s: %w", p.ID, err)
	}
	byPkg, err := c.pkgRules.covered(desired.Unstructured, live.Unstructured, paths)
	if err != nil {
		return res, fmt.Errorf("%s: package rules: %w", p.ID, err)
	}
	res.Findings = make([]Finding, 0, len(findings)+2) // exactly: a fleet's findings are a large part of what a run keeps
	for _, artifact := range []func(d, l *unstructured.Unstructured) (Finding, bool){emptyAnnotations, stringDataMoved} {
		if f, ok := artifact(desired.Unstructured, live.Unstructured); ok {
			res.Findings = append(res.Findings, f)
		}
	}
	for _, d := range findings {
		f := c.field(fc, d)
		f.CoveredByKappDefault = byKapp[d.Path.String()]
		f.CoveredByPackageRules = byPkg[d.Path.String()]
		if isSecretData(p.ID, d.Path) || isLastApplied(d.Path) {
			f.Desired, f.Live = mask(f.Desired), mask(f.Live)
		}
		// The same evidence recurs across a fleet's resources: keep one copy of each text.
		f.Evidence, f.Warning = unique.Make(f.Evidence).Value(), unique.Make(f.Warning).Value()
		res.Findings = append(res.Findings, f)
	}
	return res, nil
}

// field classifies one differing field. Order matters: another tool's bookkeeping kapp drops
// once is adoption; an owner in managedFields that is not an applier is the strongest evidence
// (a person's tool only when the server's defaulting does not produce the value); then the
// server's own defaulting, then knowledge from the rulesets. A field only appliers own is never
// a controller's: a differing declared value there is a change made in Git.
func (c *classifier) field(fc fieldContext, d fielddiff.Delta) Finding {
	f := Finding{Path: d.Path, Change: d.Change, Desired: d.Desired, Live: d.Live}
	declared := d.Change != fielddiff.Added
	path := d.Path.String()
	if ok := c.adoption(fc, d, &f); ok {
		return f
	}
	defaulted, byDefault := defaultEvidence(fc, d)
	owned, whole := d.Path, false // the field, or the atomic list or whole value holding it
	if q, ok := wholeValue(fc.owners, d.Path); ok {
		owned, whole = q, true
	}
	if others := otherOwners(fc.owners, fc.appliers, owned); len(others) > 0 && d.Change != fielddiff.Removed {
		// A person's change is never ruled away, whichever entry comes first or is newest, unless
		// the server's defaulting produces the value (kubectl apply by hand, an Update, records
		// every field it sent or the server defaulted as its own).
		var controller *owner
		for _, o := range others {
			h, isHuman := rulesets.FindManager(c.rules.Humans, o.Manager)
			if isHuman && !byDefault {
				f.Class, f.Owner = Drift, o.Manager
				f.Evidence = fmt.Sprintf("managedFields: %s changed it (%s); a tool people use by hand: %s", o.Manager, o, h.Source)
				return f
			}
			if !isHuman && controller == nil {
				controller = &o
			}
		}
		if o := controller; o != nil {
			f.Owner, f.Class = o.Manager, Controller
			f.Evidence = "managedFields: " + o.String()
			if whole {
				f.Whole = owned
				f.Evidence += " (of the whole value " + owned.String() + ")"
			}
			if declared {
				f.Warning = fmt.Sprintf("the manifest declares this field but %s rewrites it: remove it from the manifest", o.Manager)
			}
			return f
		}
	}
	if embeddedCreationTimestamp(d) {
		f.Class = Calculated
		f.Evidence = "an embedded object's metadata.creationTimestamp, which API servers store as null (metav1.Time marshals its zero value as null; v1.35 omits it)"
		return f
	}
	if d.Change == fielddiff.Canonical {
		f.Class = Defaulted
		f.Evidence = "same value in the API server's canonical form (resource.Quantity / typed round trip); kapp compares text"
		return f
	}
	if byDefault {
		f.Class, f.Evidence = Defaulted, defaulted
		return f
	}
	if d.Change != fielddiff.Removed {
		for _, cf := range c.calculated {
			if cf.Group == fc.id.Group && cf.Kind == fc.id.Kind && cf.re.MatchString(path) {
				f.Class = Calculated
				f.Evidence = "set by the API server: " + cf.Source
				return f
			}
		}
	}
	if hpa, ok := c.hpaTargets[fc.id]; ok && path == "spec.replicas" {
		f.Class, f.Owner = Controller, "horizontal-pod-autoscaler"
		f.Evidence = fmt.Sprintf("HorizontalPodAutoscaler %s targets this %s and sets spec.replicas", hpa, fc.id.Kind)
		if declared {
			f.Warning = "the manifest declares spec.replicas but the HorizontalPodAutoscaler rewrites it: remove it from the manifest"
		}
		return f
	}
	if d.Change != fielddiff.Removed && c.filledIn(fc, d, &f) {
		return f
	}
	if d.Change == fielddiff.Added {
		for _, in := range c.injected {
			if in.re.MatchString(path) {
				f.Class, f.Owner = Controller, in.Controller
				f.Evidence = fmt.Sprintf("injected by %s, a webhook managedFields cannot show (rulesets: %s)", in.Controller, in.Source)
				return f
			}
		}
	}
	if a, ok := c.admission(fc, d, path); ok {
		return a
	}
	if declared {
		f.Class = Drift
		f.Evidence = declaredDrift(fc, d)
		return f
	}
	f.Class = Unknown
	f.Evidence = fmt.Sprintf("checked: managedFields (%s), %s, calculated-field, filled-field and injection rulesets, HorizontalPodAutoscaler targets", ownerNames(fc.owners), orNone(fc.mechanism))
	return f
}

// defaultEvidence says whether the API server's defaulting of the desired object explains the
// live value, and how.
func defaultEvidence(fc fieldContext, d fielddiff.Delta) (string, bool) {
	if fc.defaulted == nil {
		return "", false
	}
	dv, ok := fc.defaultedAt.Get(d.Path)
	switch {
	case d.Change != fielddiff.Removed && d.Change != fielddiff.Canonical && ok && fielddiff.Equal(dv, d.Live):
		return fc.mechanism, true
	case (d.Change == fielddiff.Removed || d.Change != fielddiff.Added && d.Live == nil && empty(d.Desired)) && fc.stored != nil && !has(fc.storedAt, d.Path):
		// a declared value the server does not store: an empty one (rules: [], annotations:
		// {}) or a zero value its Go type omits (a CRD's preserveUnknownFields: false)
		if !empty(d.Desired) {
			return "a zero value the API server's Go type omits when it stores the object: " + fc.mechanism, true
		}
		return "an empty value the API server drops when it stores the object: " + fc.mechanism, true
	case d.Change == fielddiff.Modified && d.Desired == nil && empty(d.Live) && fc.stored != nil && storedAs(fc.storedAt, d.Path, d.Live):
		// a declared null the server decodes into its Go type's empty value and stores (a
		// Secret's data value: an empty []byte, written back as "")
		return "a null the API server stores as its type's empty value: " + fc.mechanism, true
	}
	return "", false
}

// declaredDrift explains a declared value that differs with nothing but appliers owning it.
func declaredDrift(fc fieldContext, d fielddiff.Delta) string {
	if d.Path.String() == "apiVersion" {
		return fmt.Sprintf("the server returned the object as %v, converted from the manifest's %v: that version is no longer served (or no longer the stored one); update the manifest's apiVersion", d.Live, d.Desired)
	}
	var by []string
	for _, o := range fc.owners {
		if fc.appliers.has(o.Manager) && o.owns(d.Path) {
			by = append(by, o.Manager)
		}
	}
	if len(by) > 0 {
		return fmt.Sprintf("differs from the value the manifest declares; owned by %s, which applied the manifest (%s): a change made in Git or by hand, not a controller's", strings.Join(by, ", "), fc.appliers.evidence[by[0]])
	}
	return fmt.Sprintf("differs from the value the manifest declares; no manager other than the applier (%s) owns it and no default, calculation or controller explains it", orNone(fc.appliers.main))
}

// hpaTargets maps what the inputs' autoscalers scale (ScaleTarget) to the autoscaler's
// "namespace/name".
func hpaTargets(set *pair.Set) (map[pair.Identity]string, error) {
	out := map[pair.Identity]string{}
	var docs []load.Doc
	for _, p := range set.Pairs {
		docs = append(docs, p.Desired, p.Live)
	}
	docs = append(append(docs, set.Created...), set.Deleted...)
	for _, d := range docs {
		if d.Kind != "HorizontalPodAutoscaler" && d.Kind != "ScaledObject" {
			continue
		}
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		ns := o.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		if id, ok := ScaleTarget(o.Unstructured, ns); ok {
			out[id] = ns + "/" + o.GetName()
		}
	}
	return out, nil
}

func isSecretData(id pair.Identity, p fielddiff.Path) bool {
	if id.Group != "" || id.Kind != "Secret" || len(p) == 0 || p[0].FieldName == nil {
		return false
	}
	return *p[0].FieldName == "data" || *p[0].FieldName == "stringData"
}

// isLastApplied: kubectl's copy of the applied manifest, a Secret's values included; never shown.
func isLastApplied(p fielddiff.Path) bool {
	return p.String() == `metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]`
}

// Masked replaces Secret values in every output.
const Masked = "(masked)"

func mask(v any) any {
	if v == nil {
		return nil
	}
	return Masked
}

func orNone(s string) string {
	if s == "" {
		return "none recognised"
	}
	return s
}

func ownerNames(os []owner) string {
	if len(os) == 0 {
		return "no entries"
	}
	var names []string
	for _, o := range os {
		names = append(names, o.Manager)
	}
	return "managers " + strings.Join(names, ", ")
}

func empty(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	}
	return v == nil
}

// storedAs reports whether the object holds v at p.
func storedAs(u *fielddiff.Lookup, p fielddiff.Path, v any) bool {
	sv, ok := u.Get(p)
	return ok && fielddiff.Equal(sv, v)
}

// has reports whether the object holds a value at p (a nil slice converts to null: none).
func has(u *fielddiff.Lookup, p fielddiff.Path) bool {
	v, ok := u.Get(p)
	return ok && v != nil
}
