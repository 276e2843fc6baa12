package generator

// The mutation check: a rule must never hide a change made in Git. Every declared value under a
// rule's paths is changed, one at a time, and kapp's engine must still show it unless a manager
// other than the applier owns the field.

import (
	"fmt"
	"slices"
	"sort"

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
func mutations(v *Verification, rep *classify.Report, rules []synth.Rule, configs []*unstructured.Unstructured, progress Progress, verified map[pair.Identity]verify.Result) error {
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
	shown, err := runMutations(all, configs, progress, verified)
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
// resource in one deploy), so they run on every core and kapp's Config is built once per round
// rather than twice per mutation, which made generate quadratic at fleet scale. A mutation whose
// pair could influence the others in a deploy (versioned resources, kapp config ConfigMaps, a
// live object without kapp's app label) gets a call of its own, as does its baseline. Each
// resource is decoded once to find its mutations and again only while its round is encoded for
// kapp.
func runMutations(all []mutation, configs []*unstructured.Unstructured, progress Progress, verified map[pair.Identity]verify.Result) ([]bool, error) {
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
		res, err := verify.VerifyEach(len(call), func(i int) (verify.Pair, error) {
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
	done := progress.stage("mutation checks", len(all))
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
