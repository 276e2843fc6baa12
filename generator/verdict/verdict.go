// Package verdict is the stage that judges the rules in force with kapp's engine: which
// resources kapp keeps and why it updates the others, the ghost diffs the rules leave, and the
// changes made in Git a rule hides (the mutation check). generate judges its own rules, check and
// lint the rules they are given, with this one code path, so they cannot disagree; StaleFiles
// regenerates the rule files rebasegen generated, the drift the rules keep taken for the
// defaults it replaced; Write renders the verdict in every output format, WriteGenerate
// generate's part of it.
package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
)

// Input is what the verdict is given.
type Input struct {
	Report *classify.Report
	Set    *pair.Set // for the objects kapp would create or delete
	// Configs are every Config kapp reads, in its order: the package's own and the rules judged.
	Configs []load.Object
	// Rules are the rules among Configs that can hide a declared field (Rules, Generated): each
	// gets the mutation check.
	Rules []Rule
	// Deploy are the wait and preflight rules among Configs, in kapp's order (DeployRulesOf).
	Deploy DeployRules
	// IncludeUnknown: unknown fields are ruled (generate --include-unknown).
	IncludeUnknown bool
	// Stage returns the progress callback of a stage counting to total; nil: nobody listens.
	Stage func(name string, total int) func()
	// blameBy: the Configs and Rules blame names the rules hiding a change from (blameFiles: one
	// file's alone); nil: these
	blameBy *Input
}

func (in Input) stage(name string, total int) func() {
	if in.Stage == nil {
		return nil
	}
	return in.Stage(name, total)
}

// Verdict is kapp's engine on every paired resource under the rules in force: nothing is counted
// as success that kapp was not asked about.
type Verdict struct {
	Paired  int      // paired resources, all of them verified
	Kept    int      // resources kapp keeps under both bases
	Updates []Update // resources kapp still updates, with why

	Residual []Residual // ghost diffs the rules leave
	// Ended: ghost diffs this deploy ends, in list items Git moved (endedByDeploy): reported with
	// the changes made in Git it applies, never failing.
	Ended   []Residual
	Unknown []Residual // fields nothing explains, for which kapp still updates a resource
	Drift   []Residual // human changes found in the live objects
	// Pending: changes made in Git that kapp applies on deploy (the live value is what kapp last
	// applied): reported, never drift.
	Pending  []Residual
	Adoption []Residual // what kapp changes once when it takes objects over (never ruled)
	Hidden   []Hidden   // declared fields whose change made in Git a rule hides
	Masked   []Hidden   // declared fields a rule hands to the manager that owns them (class controller)
	// DriftKept: drift the rules in force keep (kapp will not revert it), with the rules that do.
	DriftKept []Kept
	// MutationsRun counts the declared values changed by the mutation check.
	MutationsRun int
	// MutationProbes counts the changed manifests the mutation check asked kapp's engine about
	// (a rebase or a diff, under both bases): one per resource where its rules act on each value
	// whatever the others are, more only where they may not.
	MutationProbes int
	// PendingProbes counts the pairs kapp's engine was asked about (under both bases) to judge
	// the pending changes: two per resource holding some (its verdict on the manifest, and its
	// rebase of it), and one per change the object kapp applies does not hold as Git declares it,
	// more only where kapp's verdict on a pair may depend on the pairs beside it.
	PendingProbes int
	Unpaired      []Unpaired // desired objects with no live counterpart: pending creates, not compared
	// Unjudged: paired Secrets whose values rebasegen capture redacted: taken as the manifest's,
	// never compared, so never counted as kept.
	Unjudged []Unjudged
	// RulesUnjudged: hand-written ytt rules deciding on what the mutation check does not vary.
	RulesUnjudged []RuleUnjudged
	// PendingDeletes: live objects of the app with no desired counterpart: kapp deletes them.
	PendingDeletes []PendingDelete
	// DeployFails: resources of this deploy whose change groups, rules, update strategy, wait rule
	// or preflight rules kapp's deploy fails on.
	DeployFails []DeployFails
	// Ownership: paired live objects labelled as another app's: kapp's deploy fails on them.
	Ownership []Ownership
	Stale     []Stale // generated rule files that would change (check fills them in)
	// Cost is what asking kapp about the unmutated pairs cost its engine.
	Cost verify.Cost
	// Results are kapp's results on the unmutated pairs, Report.Resources' order.
	Results []verify.Result
	// beside: the versioned pairs each resource is asked about beside (besideOf)
	beside map[pair.Identity][]verify.Pair
}

// Unjudged is a resource whose values were redacted at capture (pair.Pair.Redacted).
type Unjudged struct {
	Resource pair.Identity
	Keys     []string // the redacted keys of its data
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
	// Why: what Diff says before the diff, why the file is stale and when to regenerate it (a
	// change made in Git it hides: now, and once more after the deploy); "" where Diff is the
	// reason itself or the plain diff. Every format carries it (newcomer16 N16-2: -o github
	// dropped it with the diff).
	Why string
	// Inputs are the inputs its Regenerate line records that this check did not give, and those
	// this check gave that the line does not record: "--flag value (Regenerate line only)", "(this
	// check only)" (a forgotten --values is a stale file's likeliest cause besides a change of the
	// inputs).
	Inputs []string
	// InPlace: the command regenerating the file in place, when the Regenerate line writes the
	// rules to stdout (a file generated with "> FILE"); "" when it writes the file.
	InPlace string
	// AfterDeploy, of a file that is not stale (deferred): the fields the manifests stop
	// declaring that the API server defaults anew on this deploy (Redefaulted), which the rules
	// regenerated after it copy and the file does not. Empty where the file is up to date with
	// what kapp last applied and regenerating it from these manifests would change it.
	AfterDeploy []string
}

// Hidden is a declared field whose change made in Git kapp's engine no longer reports under the
// rules in force.
type Hidden struct {
	Resource pair.Identity
	Path     string // list items by merge key, as reports write paths
	Rule     string // the rule that lets the cluster win there: where it is written and what it does
	// At is where the rule is written; zero when no one rule hides the change (the rules in
	// force together).
	At RuleAt
	// Rewritten: kapp updates the resource, and applies the rules' value there, not the
	// manifest's.
	Rewritten bool
	// How says what kapp does instead of applying the change, when an annotation on the object
	// kapp applies makes it apply nothing to the resource (Path: the change's field, or the
	// annotation when Whole), or where the rules put back a field the manifest no longer
	// declares; "" otherwise.
	How string
	// Whole: the rules write the annotation (Rule names them), so kapp applies no change made in
	// Git to the resource, whether or not Git holds one now.
	Whole bool
	// Removed: the change is a removal made in Git (the manifest no longer declares the field),
	// which the rules put back: the finding says how to apply it.
	Removed bool
	// Redefaulted: the server's default for the manifest differs from the one the rules keep
	// (a change made in Git elsewhere in the object, newcomer10 N10-8).
	Redefaulted bool
	// CRD: of a Redefaulted change, the custom resource's CRD whose default the manifests
	// change (classify.Finding.CRDDefault); "" otherwise.
	CRD string
	// Misplaced: the rules write a value the live object holds in another item of a keyed list
	// (a copy by index once Git inserted, removed or reordered items; How says which).
	Misplaced bool
	// Together: no one rule file's rules hide the change, only those of the files Rule names in
	// force together (blameFiles): At is zero, and no one file's change lets it through.
	Together bool
	// EachAlone: each of several rule files' rules hide the change alone (blameFiles): Rule names
	// every one, At the first in name order.
	EachAlone bool
	// Hypothetical: the mutation check's, a change Git could make that these manifests do not
	// (the finding says what would happen), not one this deploy applies.
	Hypothetical bool
	// Owner: the manager other than the applier that owns the field, where Git changed a value
	// such a manager owns (the exemption holds only for the value kapp last applied); "" when no
	// such manager owns it.
	Owner string
	// Refused: the object kapp applies is one the API server refuses (How says why: two handlers,
	// a handler beside a type naming another, its update validation), so kapp's deploy fails.
	Refused bool
	// RulesRefuse: of a Refused change, the API server's update validation refuses the object
	// kapp sends with the rules in force and accepts it without them (refusedByRules): How says
	// so, and what to do.
	RulesRefuse bool
	// Builtin: kapp's default Config hides the change (Rule names its rule), which no rule of the
	// package's lets through.
	Builtin bool
}

// Kept is drift the rules in force keep: kapp will not revert it.
type Kept struct {
	Hidden
	// Copied: a copy rule matching the resource names the field in a path: a copy from the live
	// object of a field the manifest leaves to the server keeps whatever a person set there.
	Copied bool
}

func (h Hidden) String() string { return h.Resource.String() + " " + h.Path }

// Judge asks kapp's engine about every pair under the Configs in force, runs the mutation check
// on the Rules, and sorts every finding of the classification into the verdict.
func Judge(in Input) (*Verdict, error) {
	v := &Verdict{Unpaired: UnpairedOf(in.Set)}
	var err error
	if v.PendingDeletes, err = PendingDeletes(in.Set, v.Unpaired, in.Rules); err != nil {
		return nil, err
	}
	if v.Ownership, err = OwnershipOf(in.Set); err != nil {
		return nil, err
	}
	covered, err := kappcover.CoveredBy(in.Report, in.Configs, in.IncludeUnknown)
	if err != nil {
		return nil, err
	}
	for i, r := range in.Report.Resources {
		for _, f := range r.Findings {
			switch {
			case f.Class == classify.Adoption:
				v.Adoption = append(v.Adoption, Residual{r.ID, f})
			case f.Class == classify.Drift:
				v.Drift = append(v.Drift, Residual{r.ID, f})
				if p, ok := f.Pending(); ok { // Git changed the field too: this deploy applies it
					v.Pending = append(v.Pending, Residual{r.ID, p})
				}
			case f.Class == classify.Pending:
				v.Pending = append(v.Pending, Residual{r.ID, f})
			case !f.Ruled(in.IncludeUnknown):
			// the package's own rules count too; kapp-view fields are judged by kapp's engine below
			case !f.Covered() && !covered[i][f.Path.String()] && !f.KappView:
				v.Residual = append(v.Residual, Residual{r.ID, f})
			}
		}
	}
	configs := unstructuredOf(in.Configs)
	if err := v.engine(in, configs); err != nil {
		return nil, err
	}
	// kapp's engine has the last word, on every pair: a resource it still updates for ghost
	// diffs is residual even when each field looked covered, and one it updates for fields
	// nothing explains is named with them.
	for _, u := range v.Updates {
		if u.Ghost && !slices.ContainsFunc(v.Residual, func(r Residual) bool { return r.Resource == u.Resource }) {
			if removed := removedCovered(in, u.Resource); len(removed) > 0 {
				v.Residual = append(v.Residual, removed...)
			} else {
				v.Residual = append(v.Residual, Residual{u.Resource, classify.Finding{Evidence: "kapp still " + strings.TrimPrefix(u.Diff, "kapp ")}})
			}
		}
		for _, f := range u.Fields {
			if f.Class == classify.Unknown {
				v.Unknown = append(v.Unknown, Residual{u.Resource, f})
			}
		}
	}
	if v.Residual, v.Ended, err = endedByDeploy(in, v.Residual); err != nil {
		return nil, err
	}
	if v.DeployFails, err = v.deployFails(in.Set, configs, in.Deploy); err != nil {
		return nil, err
	}
	if err := v.keptDrift(in, configs); err != nil {
		return nil, err
	}
	if err := v.keptAdoption(in, configs); err != nil {
		return nil, err
	}
	if v.beside, err = besideOf(in.Report); err != nil {
		return nil, err
	}
	if v.RulesUnjudged, err = rulesUnjudged(in); err != nil {
		return nil, err
	}
	pending := slices.Clone(v.Pending) // as the classification left them, for blameFiles' questions
	// The safety net: a rule letting the cluster win must not hide a change made in Git to a
	// field only the manifest's applier owns.
	if err := v.hide(in, configs); err != nil {
		return nil, err
	}
	if err := v.blameFiles(in, pending); err != nil {
		return nil, err
	}
	if err := uncoveredDefaults(in, v.Pending); err != nil {
		return nil, err
	}
	return v, nil
}

// hide finds the changes made in Git the rules in force hide (Hidden), those they hand to the
// manager owning the field (Masked), and takes the hidden ones out of Pending: the mutation
// check's, then the changes Git holds.
func (v *Verdict) hide(in Input, configs []*unstructured.Unstructured) error {
	if err := v.mutations(in, configs); err != nil {
		return err
	}
	pendingHidden, err := v.pendingHidden(in, configs)
	if err != nil {
		return err
	}
	rewritten, err := gitChangesRewritten(in)
	if err != nil {
		return err
	}
	misplaced, err := v.misplaced(in, configs)
	if err != nil {
		return err
	}
	pendingHidden = append(pendingHidden, misplaced...)
	for _, h := range rewritten {
		same := func(p Hidden) bool { return p.Resource == h.Resource && p.Path == h.Path }
		if i := slices.IndexFunc(pendingHidden, same); i >= 0 {
			// a removal the rules keep, or a default the server gives otherwise, as pendingHidden
			// judges it, where the object kapp applies holds the removed handler beside the one
			// declared now (a webhook switched to a url), or beside a type naming another (a
			// Deployment's rollingUpdate beside Recreate, probe13 P13-1): that kapp's deploy fails
			// says more
			if h.Refused {
				pendingHidden[i].How, pendingHidden[i].Refused, pendingHidden[i].Removed, pendingHidden[i].Redefaulted = h.How, true, h.Removed, false
			}
			continue
		}
		if !slices.ContainsFunc(v.Hidden, same) {
			pendingHidden = append(pendingHidden, h)
		}
	}
	for i, h := range pendingHidden {
		// the object kapp applies under the rules is one the API server's update validation
		// refuses where it accepts the one without them (a probe the rules rebuild from its
		// copied defaults once Git removed its handler, newcomer17 N17-3): no rule hides the
		// change, the deploy fails on it, and the server stores nothing to put a field back in
		if why, ok := refusedByRules(v.Pending, h); ok {
			pendingHidden[i].How, pendingHidden[i].Refused, pendingHidden[i].RulesRefuse = why, true, true
		}
	}
	v.Hidden = oncePerField(append(v.Hidden, pendingHidden...))
	v.Masked = slices.DeleteFunc(oncePerField(v.Masked), func(m Hidden) bool { // a change made in Git: hidden, not masked
		return slices.ContainsFunc(v.Hidden, func(h Hidden) bool { return h.Resource == m.Resource && h.Path == m.Path })
	})
	v.Pending = slices.DeleteFunc(v.Pending, func(p Residual) bool { // hidden: kapp does not apply it
		return slices.ContainsFunc(v.Hidden, func(h Hidden) bool { return h.Resource == p.Resource && h.Path == p.Finding.Path.String() })
	})
	return nil
}

// oncePerField keeps the first finding of each field of hs: the mutation check and the question
// about the value Git holds both find a change the rules hide (a rule copying the whole spec),
// which was reported, and counted, twice (probe7, newcomer5 F5). The manager owning the field, if
// only a later finding names it, is kept.
func oncePerField(hs []Hidden) []Hidden {
	type field struct {
		id   pair.Identity
		path string
	}
	first := make(map[field]int, len(hs))
	out := hs[:0]
	for _, h := range hs {
		k := field{h.Resource, h.Path}
		i, seen := first[k]
		if !seen {
			first[k] = len(out)
			out = append(out, h)
			continue
		}
		out[i].Owner = cmp.Or(out[i].Owner, h.Owner)
	}
	return out
}

// OK reports whether every ghost diff is gone, no change made in Git is hidden, every rule in
// force is judged and kapp's deploy passes its ownership check (rules for a deploy that fails
// would be verified for nothing). Drift and unknown fields are the caller's to judge (Updates
// names them).
func (v *Verdict) OK() bool {
	return len(v.Residual) == 0 && len(v.Hidden) == 0 && len(v.RulesUnjudged) == 0 && len(v.Ownership) == 0
}

// Count returns how many updated resources have a field of the class.
func (v *Verdict) Count(c classify.Class) int {
	n := 0
	for _, u := range v.Updates {
		if slices.ContainsFunc(u.Fields, func(f classify.Finding) bool { return f.Class == c }) {
			n++
		}
	}
	return n
}

// Ghosts returns the updates left by ghost diffs.
func (v *Verdict) Ghosts() []Update {
	var out []Update
	for _, u := range v.Updates {
		if u.Ghost {
			out = append(out, u)
		}
	}
	return out
}

// Summary counts the resources kapp keeps and updates.
func (v *Verdict) Summary() string {
	s := fmt.Sprintf("kapp keeps %d/%d paired resources under both bases", v.Kept, v.Paired)
	if n := len(v.Unjudged); n > 0 {
		s += fmt.Sprintf(", %d not judged (Secret values redacted at capture)", n)
	}
	if len(v.Updates) == 0 {
		return s
	}
	var why []string
	for _, c := range []classify.Class{classify.Drift, classify.Unknown, classify.Adoption} {
		if n := v.Count(c); n > 0 {
			why = append(why, fmt.Sprintf("%d with %s", n, c))
		}
	}
	if n := v.Count(classify.Pending); n > 0 {
		why = append(why, fmt.Sprintf("%d with changes made in Git", n))
	}
	if n := len(v.Ghosts()); n > 0 {
		why = append(why, fmt.Sprintf("%d with ghost diffs left", n))
	}
	return s + fmt.Sprintf(" and updates %d (%s)", len(v.Updates), strings.Join(why, ", "))
}
