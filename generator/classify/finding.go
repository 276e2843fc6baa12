// Package classify explains every differing field of a desired/live pair: defaulted by the API
// server, calculated by it, owned by a controller, drift made by a person, or unknown, each
// with the evidence for it.
package classify

import (
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/rulesets"
)

// Class is why a field differs.
type Class string

const (
	Defaulted  Class = "defaulted"  // the API server's defaulting produced the live value
	Calculated Class = "calculated" // the server set it outside defaulting (allocators, strategies)
	Admission  Class = "admission"  // added during admission of the applier's own write (webhook or plugin)
	Controller Class = "controller" // another manager owns it (Owner names it)
	Drift      Class = "drift"      // a human change: reported, never ruled
	Unknown    Class = "unknown"    // nothing explains it
	// Adoption: another tool's bookkeeping that kapp removes once, when it takes the object over
	// (rulesets/adoption.yaml): reported, never ruled. Summaries show it only when present.
	Adoption Class = "adoption"
	// KappArtifact: kapp's own reading of the live object makes the difference, not the server:
	// the empty annotations map kapp leaves when it strips its own annotations. Ruled like
	// Calculated; a class of its own so that it is not called the server's.
	KappArtifact Class = "kapp-artifact"
	// Pending: a change made in Git that this deploy applies: the manifest declares another value
	// than kapp last applied (kapp.k14s.io/original), which the live object still holds. Reported,
	// never ruled, never drift. Summaries show it only when present.
	Pending Class = "pending"
	// Operational: an annotation a person stamped on purpose at run time with a known tool
	// (rulesets/operational.yaml: kubectl rollout restart's restartedAt). Ruled per kind with the
	// manifest's value winning, so that kapp does not undo the action. Summaries show it only
	// when present.
	Operational Class = "operational"
)

// Classes returns the classes in report order (Adoption and Pending, when present, are reported
// after them);
// a fresh slice on every call.
func Classes() []Class {
	return []Class{Defaulted, Calculated, KappArtifact, Admission, Controller, Drift, Unknown}
}

// Ghost reports whether the class is a ghost diff that a rebase rule should remove.
func (c Class) Ghost() bool {
	return c == Defaulted || c == Calculated || c == KappArtifact || c == Admission || c == Controller || c == Operational
}

// Finding is one differing field with its class and evidence.
type Finding struct {
	Path fielddiff.Path
	// Whole, for a controller's field inside an atomic list or another value its owner holds as
	// a whole: that value's path, which a rule copies whole (kapp cannot copy one item of it).
	Whole    fielddiff.Path
	Change   fielddiff.Change
	Class    Class
	Owner    string // manager or controller, for Controller and Drift; for Pending, the one that rewrote the value kapp applied
	Desired  any    // masked for Secrets
	Live     any    // masked for Secrets
	Evidence string
	// CoveredByKappDefault: kapp's built-in rebase rules already remove this difference.
	CoveredByKappDefault bool
	// CoveredByPackageRules: the package's own kapp Config already removes it.
	CoveredByPackageRules bool
	// Warning suggests a fix in the manifest, e.g. dropping a field a controller rewrites.
	Warning string
	// Blocks: kapp's deploy fails on it (an adoption change, or a change made in Git, to a field
	// the API server refuses to change); check fails on it whatever its flags.
	Blocks bool
	// Unserved: the manifest's apiVersion (Path), at which the API server does not serve the
	// kind (served.go): kapp's deploy fails before applying anything; check
	// fails on it whatever its class (Drift).
	Unserved bool
	// ServedUnknown: the manifest's apiVersion (Path), where whether the API server serves the
	// kind at it cannot be judged (served.go: no data for the server's version): Drift, and
	// check's summary names it, as kapp's deploy may fail on it.
	ServedUnknown bool
	// Pruned: the manifest declares a field the API server does not know and dropped when it
	// stored the object: a mistake in the manifest, reported, never ruled (Class Unknown).
	Pruned bool
	// AppliedBefore: an Unknown field only the live object has, with no kapp.k14s.io/original,
	// that managedFields credit the manifest's applier with: the manifest declared it when it was
	// applied, so it may have been removed in Git since.
	AppliedBefore bool
	// KappView: the objects agree on this field; only kapp's reading of them differs (the empty
	// annotations map it leaves, Secret stringData it compares as text), or another manager
	// writes it and it holds the manifest's value right now (Change Same): kapp's engine alone
	// judges whether kapp updates it.
	KappView bool
	// DependsOn: a default the server chooses by whether other fields of the object are empty
	// (rulesets/dependent.yaml); nil for any other finding.
	DependsOn *rulesets.Dependent
	// Reordered: a Pending change of the order of the associative list at Path, whose items
	// the manifest and the live object otherwise both hold; Desired and Live are their merge keys
	// in each one's order.
	Reordered bool
	// ServerKeeps: a Pending change the API server does not make on update either (a headless
	// Service's clusterIP: None removed in Git, headlessKept): whatever kapp applies, the object
	// keeps the live value, and Warning says what to do; no rule's hiding, nor kapp's.
	ServerKeeps bool
	// GitToo: a Drift finding whose field Git changed too since the applier's last apply (the
	// three-way view): the change made in Git beside the person's edit; nil for any other.
	GitToo *GitChange
	// DefaultedTo: a Pending removal made in Git that the API server defaults anew: the value its
	// defaulting of the manifest gives the field on this deploy, which the live object holds
	// after it (a ReplicationController's replicas: 1); nil for any other finding.
	DefaultedTo any
	// Redefaults: a Drift finding of a field the manifest leaves to the API server's defaulting:
	// the words its evidence ends with (redefaults) saying kapp's deploy reverts it to the default
	// and to regenerate the rules after the deploy; "" for any other finding.
	Redefaults string
	// Inserted: the items the manifest inserted into the atomic list at Path before the live
	// items' end (fielddiff.Delta.Inserted), compared as one change; nil otherwise.
	Inserted *fielddiff.Insertion
	// Follows: a Drift finding the API server sets only for the person's changes at these paths
	// (the drift findings of the same resource): it goes with them (consequences); nil otherwise.
	Follows []string
	// CRDDefault: a custom resource's field whose live value is the default of its CRD as the
	// cluster has it, which the manifests' CRD changes (crdDefaultChanged): that CRD's name; ""
	// for any other finding. Pending where this deploy updates the object (DefaultedTo the new
	// default, or nil where none), else Defaulted: the object keeps the old default.
	CRDDefault string
	// CRDEarlier: a CRDDefault finding after the deploy that applied the CRD's new default
	// (crdDefaultKept): the live value is an earlier version's default of the CRD, which the
	// cluster's CRD no longer gives; the object keeps it until kapp next updates it.
	CRDEarlier bool
	// Autoscaler: a Drift finding of spec.replicas of a resource an autoscaler among the inputs
	// targets (hpaTargets): that autoscaler's "namespace/name". A person's scale on top of it
	// (kubectl scale) is drift, which the autoscaler's next scale overwrites; the field is the
	// autoscaler's all the same, so rules copy it (Ruled, AsRuled) and a rule copying it hides
	// no change made in Git (newcomer16 N16-6); "" for any other finding.
	Autoscaler string
}

// Label is the class as scenario files and reports write it: controller:<manager>.
func (f Finding) Label() string { return f.Class.Label(f.Owner) }

// Label writes the class with the manager owning the field when it is Controller:
// controller:<manager>; owner is ignored for the other classes.
func (c Class) Label(owner string) string {
	if c == Controller {
		return string(c) + ":" + owner
	}
	return string(c)
}

// Ruled reports whether rebase rules are meant to remove the difference: a ghost diff, or a field
// nothing explains when the user asked for those to be ruled too (--include-unknown). What is
// ruled is what synth writes rules for and what kapp must then keep; everything else is a reason
// for kapp to update the resource.
func (f Finding) Ruled(includeUnknown bool) bool {
	return f.Class.Ghost() || f.Autoscaler != "" || f.Class == Unknown && includeUnknown && !f.Pruned
}

// AsRuled is f as rules copy it: a drift on a field an autoscaler owns (Autoscaler) is the
// autoscaler's, as without the person's scale; any other finding is itself.
func (f Finding) AsRuled(id pair.Identity) Finding {
	if f.Autoscaler != "" {
		autoscaledReplicas(&f, id, f.Autoscaler, f.Change != fielddiff.Added)
	}
	return f
}

// Covered reports whether existing rules (kapp's or the package's) already handle the field.
func (f Finding) Covered() bool { return f.CoveredByKappDefault || f.CoveredByPackageRules }

// Resource is the classification of one pair.
type Resource struct {
	pair.Pair
	Applier string // the manager recognised as applying the desired state, "" if none
	// KappMarked: no applier is recognised because the live object has no managedFields, but it
	// carries what kapp writes on deploy (kapp.k14s.io/original, kapp's app or association
	// label): kapp applied it, and which fields it set is not known.
	KappMarked bool
	// NoCRD: a custom resource whose CustomResourceDefinition is not among the inputs: its
	// schema's defaults, pruning and list types are unknown.
	NoCRD    bool
	Findings []Finding
	Noise    map[string]int // differences that are not findings, by reason
}

// Report is the classification of all pairs.
type Report struct {
	Resources []Resource
	Created   []load.Doc // desired only
	Deleted   []load.Doc // live only: kapp deletes them (pair.Set.Deleted)
	LiveOnly  []load.Doc // live only, not kapp's to delete (pair.Set.LiveOnly)
	CRDs      []load.Doc // the CustomResourceDefinitions among the inputs (pair.Set.CRDs)
	// Version: how the API server's minor version defaults otherwise (Options.Version)
	Version *rulesets.VersionDefaults
}

// Counts tallies findings by class.
func (r *Report) Counts() map[Class]int {
	out := map[Class]int{}
	for _, res := range r.Resources {
		for _, f := range res.Findings {
			out[f.Class]++
		}
	}
	return out
}
