package generator

// The mutation check: a rule must never hide a change made in Git. Every declared value under a
// rule's paths is changed, one at a time, and kapp's engine must still show it unless a manager
// other than the applier owns the field.

import (
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// mutations changes every declared value under each rule's paths, one at a time, and asks
// kapp whether it still reports the change. Results are reported in rule order, then resource order.
func mutations(v *Verification, rep *classify.Report, rules []synth.Rule, configs []*unstructured.Unstructured, progress Progress) error {
	var all []mutation
	for _, r := range rep.Resources {
		var desired, live load.Object
		for ri, rule := range rules {
			if !ruleMatches(rule, r) {
				continue
			}
			if desired.Unstructured == nil {
				var err error
				if desired, live, err = r.Objects(); err != nil {
					return err
				}
			}
			for _, p := range rulePaths(rule) {
				val, ok := p.Get(desired.Object)
				mutated, can := mutate(val)
				if !ok || !can {
					continue
				}
				// handed to a controller by this rule or by another one matching the resource
				// (a kind-wide default rule for spec.replicas next to an HPA's rule for one resource)
				all = append(all, mutation{rule: ri, r: r, path: p, value: mutated, what: fmt.Sprintf("%s %s", r.ID, p),
					controller: controllerRuled(rules, r, p),
					single:     !batchable(desired.Unstructured, live.Unstructured)})
			}
		}
	}
	shown, err := runMutations(all, configs, progress)
	if err != nil {
		return err
	}
	for i, m := range all {
		v.MutationsRun++
		switch {
		case shown[i]:
		case m.controller:
			v.Masked = append(v.Masked, m.what)
		default:
			v.Hidden = append(v.Hidden, m.what)
		}
	}
	return nil
}

// mutation is one declared value changed under a rule's path.
type mutation struct {
	rule       int // orders the results
	r          classify.Resource
	path       fielddiff.Path
	value      any // the mutated value, set on a freshly decoded desired object when its round runs
	what       string
	by         string // the rule, for check's report
	controller bool   // a manager other than the applier owns the field, with evidence
	single     bool
}

// runMutations asks kapp's engine, for each mutation, whether it shows the change under both
// bases: an update whose diff differs from kapp's diff of the unmutated pair (a pair kapp already
// updates for another field shows the change only in its diff). It sorts all by rule (stable)
// and returns what kapp showed, in that order.
//
// Performance: the mutations are verified in rounds, one verify call per round with at most
// one mutation per resource (kapp rejects two copies of a resource in one deploy), so they run on
// every core and kapp's Config is built once per round rather than twice per mutation, which made
// generate quadratic at fleet scale. A mutation whose pair could influence the others in a
// deploy (versioned resources, kapp config ConfigMaps, a live object without kapp's app label)
// still gets a call of its own. Each resource is decoded once to find its mutations and again
// only while its round is encoded for kapp.
func runMutations(all []mutation, configs []*unstructured.Unstructured, progress Progress) ([]bool, error) {
	sort.SliceStable(all, func(i, j int) bool { return all[i].rule < all[j].rule })
	// each resource's unmutated pair first, then the mutations
	var jobs []mutation
	baseline := map[pair.Identity]int{} // index into jobs
	for _, m := range all {
		if _, ok := baseline[m.r.ID]; !ok {
			baseline[m.r.ID] = len(jobs)
			jobs = append(jobs, mutation{r: m.r, single: m.single})
		}
	}
	jobs = append(jobs, all...)
	var rounds, singles [][]int // indices into jobs
	perResource := map[pair.Identity]int{}
	for i, m := range jobs {
		if m.single {
			singles = append(singles, []int{i})
			continue
		}
		n := perResource[m.r.ID] // this resource's n-th job goes to round n
		perResource[m.r.ID]++
		if n == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[n] = append(rounds[n], i)
	}
	results := make([]verify.Result, len(jobs))
	done := progress.stage("mutation checks", len(all))
	for _, round := range append(rounds, singles...) {
		var tick func()
		if done != nil { // progress counts mutations: a round's first calls stand for its baselines
			var calls atomic.Int64
			baselines := int64(len(slices.DeleteFunc(slices.Clone(round), func(j int) bool { return j >= len(jobs)-len(all) })))
			tick = func() {
				if calls.Add(1) > baselines {
					done()
				}
			}
		}
		res, err := verify.VerifyEach(len(round), func(i int) (verify.Pair, error) {
			m := jobs[round[i]]
			return verifyPair(m.r.Pair, m.path, m.value)
		}, configs, tick)
		if err != nil {
			return nil, err
		}
		for i, j := range round {
			results[j] = res[i]
		}
	}
	shown := make([]bool, len(all))
	for i, m := range all {
		res, base := results[len(jobs)-len(all)+i], results[baseline[m.r.ID]]
		shown[i] = true
		for _, b := range verify.Bases() {
			if res.Op[b] != verify.OpUpdate || (base.Op[b] == verify.OpUpdate && res.Diff[b] == base.Diff[b]) {
				shown[i] = false
			}
		}
	}
	return shown, nil
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

// controllerRuled reports whether a rule matching r lets the cluster win at p.
func controllerRuled(rules []synth.Rule, r classify.Resource, p fielddiff.Path) bool {
	for _, rule := range rules {
		if !rule.ControllerWins() || !ruleMatches(rule, r) {
			continue
		}
		for _, q := range rulePaths(rule) {
			if q.String() == p.String() {
				return true
			}
		}
	}
	return false
}

func rulePaths(r synth.Rule) []fielddiff.Path {
	out := append(append([]fielddiff.Path{}, r.Keyed...), r.Indexed...) // empty-map paths hold no declared value
	for _, p := range r.Paths {
		out = append(out, fielddiff.FromFields(p))
	}
	return out
}

func ruleMatches(rule synth.Rule, r classify.Resource) bool {
	return slices.ContainsFunc(rule.Matchers, func(m synth.Matcher) bool { return matches(m, r) })
}

// matches is kapp's matcher semantics over pair identities.

func matches(m synth.Matcher, r classify.Resource) bool {
	switch {
	case m.And != nil:
		return !slices.ContainsFunc(m.And.Matchers, func(m synth.Matcher) bool { return !matches(m, r) })
	case m.Any != nil:
		return slices.ContainsFunc(m.Any.Matchers, func(m synth.Matcher) bool { return matches(m, r) })
	case m.Not != nil:
		return !matches(m.Not.Matcher, r)
	case m.EmptyField != nil:
		return true // decided on the object being rebased: a resource may match, and its mutations are checked
	case m.APIVersionKind != nil:
		return m.APIVersionKind.APIVersion == r.Desired.APIVersion && m.APIVersionKind.Kind == r.ID.Kind
	case m.APIGroupKind != nil:
		return m.APIGroupKind.APIGroup == r.ID.Group && m.APIGroupKind.Kind == r.ID.Kind
	case m.KindNamespaceName != nil:
		k := m.KindNamespaceName
		return k.Kind == r.ID.Kind && k.Namespace == r.ID.Namespace && k.Name == r.ID.Name
	}
	return false
}

// mutate returns a different value of the same type, for scalars.
func mutate(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		return t + "-rebasegen-mutation", true
	case int64:
		return t + 1, true
	case float64:
		return t + 1, true
	case bool:
		return !t, true
	}
	return nil, false
}
