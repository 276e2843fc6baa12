package verdict

import (
	"slices"
	"sort"
	"strings"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// mutations runs the mutation check on in.Rules: every scalar value a matched desired object
// declares where a rule may hide it (declared) is changed, one at a time, and kapp's engine with
// configs must still report an update under both bases. A change it no longer shows is masked
// where the classification found a manager other than the applier owning the field (class
// controller, with its evidence), else hidden. kapp's answer depends on the field, not on which
// rule proposed it (configs hold them all), so each field is changed once, and named by the
// first rule proposing it.
func (v *Verdict) mutations(in Input, configs []*unstructured.Unstructured) error {
	var all []mutation
	for _, r := range in.Report.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for ri, rule := range in.Rules {
			if !rule.Matches(desired.Unstructured) {
				continue
			}
			for _, c := range rule.declared(desired.Unstructured, live.Unstructured) {
				what := fielddiff.ByKey(desired.Unstructured, c.path).String()
				if seen[what] {
					continue
				}
				seen[what] = true
				all = append(all, mutation{rule: ri, r: r, path: c.path, value: c.value, what: what, by: rule.At.String() + " (" + rule.Describe() + ")", at: rule.At,
					controller: controlled(r, desired.Object, byIndex(desired.Object, c.path)),
					single:     !batchable(desired.Unstructured, live.Unstructured)})
			}
		}
	}
	var verified map[pair.Identity]verify.Result
	if v.Results != nil {
		verified = v.verified(in.Report)
	}
	shown, err := runMutations(all, configs, in.stage("mutation checks", len(all)), verified)
	if err != nil {
		return err
	}
	rewrote, err := rewritten(in, all, shown)
	if err != nil {
		return err
	}
	v.MutationsRun = len(all)
	for i, m := range all {
		h := Hidden{Resource: m.r.ID, Path: m.what, Rule: m.by, At: m.at, Rewritten: rewrote[i]}
		switch {
		case shown[i] && !rewrote[i]:
		case m.controller:
			v.Masked = append(v.Masked, h)
		default:
			v.Hidden = append(v.Hidden, h)
		}
	}
	return nil
}

// verified indexes kapp's results on the unmutated pairs, for the mutation check's baselines.
func (v *Verdict) verified(rep *classify.Report) map[pair.Identity]verify.Result {
	out := make(map[pair.Identity]verify.Result, len(v.Results))
	for i, r := range rep.Resources {
		out[r.ID] = v.Results[i]
	}
	return out
}

// candidate is a declared scalar and the value it is changed to.
type candidate struct {
	path  fielddiff.Path
	value any
}

// declared lists the scalars desired declares whose change the rule may hide, each with its
// mutated value: those under the rule's paths; for additionalLabels those of its keys, wherever
// they stand (kapp's ownership label rules, its own and the Configs', decide where it writes
// them, and kapp's engine whether that hides them); those a ytt rule rewrites (yttWrites).
func (c Rule) declared(desired, live *unstructured.Unstructured) []candidate {
	if c.keepsDeclared {
		return nil
	}
	if c.hint != nil {
		var out []candidate
		for _, p := range c.hint {
			val, ok := p.Get(desired.Object)
			if mutated, can := mutate(val); ok && can {
				out = append(out, candidate{p, mutated})
			}
		}
		return out
	}
	if c.ytt != nil {
		return c.yttWrites(desired, live)
	}
	var ps []fielddiff.Path
	if c.keys != nil {
		for _, p := range declaredUnder(desired.Object, nil) {
			if last := p[len(p)-1]; last.FieldName != nil && c.keys[*last.FieldName] {
				ps = append(ps, p)
			}
		}
	}
	for _, kp := range c.paths {
		ps = append(ps, declaredUnder(desired.Object, kp)...)
	}
	out := make([]candidate, len(ps))
	for i, p := range ps {
		val, _ := p.Get(desired.Object)
		mutated, _ := mutate(val)
		out[i] = candidate{p, mutated}
	}
	return out
}

// yttWrites lists the scalars desired declares that the ytt rule rewrites: with one of them
// changed, kapp's own rebase code running this rule alone (live as the existing object) leaves
// another value there, or none. An overlay can write any field, and whether it does may depend
// on the values (a list item selected by its name), so every declared scalar is tried, one at a
// time: one ytt evaluation each, cheaper than the kapp diff under both bases each candidate then
// gets with every rule. A change the rule fails on is no candidate: kapp's deploy would stop on
// it, not hide it.
func (c Rule) yttWrites(desired, live *unstructured.Unstructured) []candidate {
	mods := slices.Clone(c.ytt)
	for i, m := range mods {
		mods[i] = kappglobal.SerialYTT(m) // the one ytt lock: ytt's package-level state is not safe for concurrent runs
	}
	existing := ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{})
	var out []candidate
	for _, p := range declaredUnder(desired.Object, nil) {
		val, _ := p.Get(desired.Object)
		mutated, _ := mutate(val)
		d := desired.DeepCopy()
		p.Set(d.Object, mutated)
		rebased, ok := rebaseAlone(mods, existing, d)
		if !ok {
			continue
		}
		if got, ok := p.Get(rebased); !ok || !fielddiff.Equal(got, mutated) {
			out = append(out, candidate{p, mutated})
		}
	}
	return out
}

// rebaseAlone is kapp's rebase of desired with mods only; false where kapp fails or panics.
func rebaseAlone(mods []ctlres.ResourceModWithMultiple, existing ctlres.Resource, desired *unstructured.Unstructured) (obj map[string]any, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	res, err := ctldiff.NewRebasedResource(existing, ctlres.NewResourceUnstructured(*desired, ctlres.ResourceType{}), mods).Resource()
	if err != nil {
		return nil, false
	}
	return res.UnstructuredObject(), true
}

// responsible names the rules in force that may hide the change at p (by key) on r: those
// matching r whose paths reach p or lie under it, in the desired or the live object; additional
// labels of p's key; ytt rules matching r (an overlay can write anything). It returns their
// description and where the first is written; zero when none does (kapp's rules together).
func responsible(rules []Rule, r classify.Resource, p fielddiff.Path) (string, RuleAt) {
	desired, live, err := r.Objects()
	if err != nil {
		return "", RuleAt{}
	}
	var names []string
	var at RuleAt
	for _, rule := range rules {
		if !rule.Matches(desired.Unstructured) || !rule.reaches(p, desired.Object, live.Object) {
			continue
		}
		if len(names) == 0 {
			at = rule.At
		}
		names = append(names, rule.At.String()+" ("+rule.Describe()+")")
	}
	if len(names) == 0 {
		return "the rules in force together (kapp's built-in rules alone apply the change)", RuleAt{}
	}
	return strings.Join(names, "; "), at
}

// reaches reports whether the rule can act on the field at p (by key) of obj or live.
func (c Rule) reaches(p fielddiff.Path, objs ...map[string]any) bool {
	if c.ytt != nil {
		return true
	}
	if c.keys != nil {
		last := p[len(p)-1]
		return last.FieldName != nil && c.keys[*last.FieldName]
	}
	for _, obj := range objs {
		at := byIndex(obj, p)
		for _, kp := range c.paths {
			for _, q := range resolved(obj, kp) {
				if at.HasPrefix(q) || q.HasPrefix(at) {
					return true
				}
			}
		}
	}
	return false
}

// controlled reports whether classification found a manager other than the applier owning the
// field at p (by index in obj), or a value holding it: a controller finding at it or above it.
func controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	for _, f := range r.Findings {
		if f.Class != classify.Controller {
			continue
		}
		for _, q := range []fielddiff.Path{f.Path, f.Whole} {
			if q != nil && p.HasPrefix(byIndex(obj, q)) {
				return true
			}
		}
	}
	return false
}

// byIndex rewrites list items selected by key or value into their index in obj, as kapp's paths
// and declaredUnder address them.
func byIndex(obj map[string]any, p fielddiff.Path) fielddiff.Path {
	x := "x"
	step := func(cur any, pe fieldpath.PathElement) (any, bool) { // Get from any value, not only a map
		return fielddiff.Path{{FieldName: &x}, pe}.Get(map[string]any{x: cur})
	}
	out := make(fielddiff.Path, 0, len(p))
	var cur any = obj
	for _, pe := range p {
		if l, ok := cur.([]any); ok && pe.Index == nil {
			i := slices.IndexFunc(l, func(item any) bool {
				_, found := step([]any{item}, pe)
				return found
			})
			if i < 0 {
				return p // not in the desired object: nothing declared there
			}
			pe = fieldpath.PathElement{Index: &i}
		}
		out = append(out, pe)
		cur, _ = step(cur, pe)
	}
	return out
}

// mutation is one declared value changed under a rule's path.
type mutation struct {
	rule       int // orders the results
	r          classify.Resource
	path       fielddiff.Path
	value      any    // the mutated value, set on a freshly decoded desired object when its round runs
	what       string // the field's path by key
	by         string // the rule, for check's report
	at         RuleAt // where the rule is written, for check's report
	controller bool   // a manager other than the applier owns the field, with evidence
	single     bool
}

// runMutations asks kapp's engine, for each mutation, whether it shows the change under both
// bases (verify.Shown): an update whose diff differs from kapp's diff of the unmutated pair (a
// pair kapp already updates for another field shows the change only in its diff). It sorts all
// by rule (stable) and returns what kapp showed, in that order. verified holds kapp's results on
// the unmutated pairs from the verification, if any.
//
// Performance: kapp's result on a resource's unmutated pair (the baseline) is taken from the
// verification when it is provably the same question (verify.Result.Alone: the same pair with
// the same configs, and nothing else of the call entered kapp's verdict); only the other
// resources' unmutated pairs are asked about here. The mutations are verified in rounds, one
// verify call per round with at most one mutation per resource (kapp rejects two copies of a
// resource in one deploy), so they run on every core and kapp's Config is built once per round,
// not once per mutation (its cost grows with the resources it matches). A mutation whose
// pair could influence the others in a deploy (versioned resources, kapp config ConfigMaps, a
// live object without kapp's app label) gets a call of its own, as does its baseline. Each
// resource is decoded once to find its mutations and again only while its round is encoded for
// kapp.
func runMutations(all []mutation, configs []*unstructured.Unstructured, done func(), verified map[pair.Identity]verify.Result) ([]bool, error) {
	sort.SliceStable(all, func(i, j int) bool { return all[i].rule < all[j].rule })
	baseline := map[pair.Identity]verify.Result{}
	var unverified []mutation // one per resource whose unmutated pair kapp is asked about here
	seen := map[pair.Identity]bool{}
	for _, m := range all {
		if seen[m.r.ID] {
			continue
		}
		seen[m.r.ID] = true
		if res, ok := verified[m.r.ID]; ok && res.Alone && !m.single {
			baseline[m.r.ID] = res
			continue
		}
		unverified = append(unverified, mutation{r: m.r, single: m.single})
	}
	for _, call := range calls(unverified) {
		res, _, err := verify.Baselines(len(call), func(i int) (verify.Pair, error) {
			return verifyPair(unverified[call[i]].r.Pair, nil, nil)
		}, configs, nil)
		if err != nil {
			return nil, err
		}
		for i, j := range call {
			baseline[unverified[j].r.ID] = res[i]
		}
	}
	shown := make([]bool, len(all))
	for _, call := range calls(all) {
		res, err := verify.Shown(len(call), func(i int) (verify.Pair, error) {
			m := all[call[i]]
			return verifyPair(m.r.Pair, m.path, m.value)
		}, func(i int) verify.Result { return baseline[all[call[i]].r.ID] }, configs, done)
		if err != nil {
			return nil, err
		}
		for i, j := range call {
			shown[j] = res[i]
		}
	}
	return shown, nil
}

// calls groups mutations into verify calls: the n-th mutation of each resource in the n-th call
// (one copy of a resource per call), and a call of its own for each single one.
func calls(ms []mutation) [][]int {
	var rounds, singles [][]int
	perResource := map[pair.Identity]int{}
	for i, m := range ms {
		if m.single {
			singles = append(singles, []int{i})
			continue
		}
		n := perResource[m.r.ID]
		perResource[m.r.ID]++
		if n == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[n] = append(rounds[n], i)
	}
	return append(rounds, singles...)
}

// batchable reports whether a mutated pair may share a verify.Verify call with other pairs and
// get the verdict it gets alone: kapp diffs versioned resources together, reads ConfigMaps
// labelled kapp.k14s.io/config as config for the whole deploy, and labels a live object without
// an app label with the app most pairs of the call have.
func batchable(desired, live *unstructured.Unstructured) bool {
	if _, ok := desired.GetAnnotations()[kappconv.Versioned]; ok {
		return false
	}
	if _, ok := desired.GetLabels()[kappconv.ConfigLabel]; ok {
		return false
	}
	return live != nil && live.GetLabels()[kappconv.AppLabel] != ""
}

// Mutate is the mutation check's value generator (mutate) for other appliers' checks: another
// value of v's type and shape, drawn at random; false for a value that is not a scalar.
func Mutate(v any) (any, bool) { return mutate(v) }

// Controlled reports whether r's classification found a manager other than the applier owning
// the field at p (by key, as findings name fields), or a value holding it (controlled).
func Controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	return controlled(r, obj, byIndex(obj, p))
}
