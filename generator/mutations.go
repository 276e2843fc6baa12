package generator

// The mutation check: a rule must never hide a change made in Git. Every declared value under a
// rule's paths is changed, one at a time, and kapp's engine must still show it unless a manager
// other than the applier owns the field.

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// mutations changes every declared value under each rule's paths, one at a time, and asks
// kapp whether it still reports the change. Results are reported in rule order, then resource order.
func mutations(v *Verification, rep *classify.Report, rules []synth.Rule, configs []*unstructured.Unstructured, progress Progress, verified map[pair.Identity]verify.Result) error {
	matchers, err := ruleMatchers(rules)
	if err != nil {
		return err
	}
	var all []mutation
	for _, r := range rep.Resources {
		desired, err := r.Desired.Object()
		if err != nil {
			return err
		}
		matched := matching(matchers, desired)
		if len(matched) == 0 {
			continue
		}
		live, err := r.Live.Object()
		if err != nil {
			return err
		}
		for _, ri := range matched {
			paths := rulePaths(rules[ri])
			for _, m := range rules[ri].Owned { // the manifest's keys, which the copy of the whole map must not hide
				paths = append(paths, declaredUnder(desired.Object, ctlres.NewPathFromStrings(m.Path))...)
			}
			for _, p := range paths {
				val, ok := p.Get(desired.Object)
				mutated, can := mutate(val)
				if !ok || !can {
					continue
				}
				// handed to a controller by this rule or by another one matching the resource
				// (a kind-wide default rule for spec.replicas next to an HPA's rule for one resource)
				all = append(all, mutation{rule: ri, r: r, path: p, value: mutated, what: fielddiff.ByKey(desired.Unstructured, p).String(),
					controller: controllerRuled(rules, matched, p),
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
			v.Masked = append(v.Masked, Field{m.r.ID, m.what})
		default:
			v.Hidden = append(v.Hidden, Field{m.r.ID, m.what})
		}
	}
	return nil
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

// ruleMatchers builds kapp's own matcher for each rule.
func ruleMatchers(rules []synth.Rule) ([]kappmatch.Matcher, error) {
	out := make([]kappmatch.Matcher, len(rules))
	for i, r := range rules {
		ms, err := synth.KappMatchers(r.Matchers)
		var ok bool
		if err == nil {
			out[i], ok = kappmatch.New(ms)
		}
		if !ok { // synth writes no matcher kapp cannot read: a bug
			return nil, fmt.Errorf("generated rule %d: kapp cannot read its matchers (%v)", i, err)
		}
	}
	return out, nil
}

// matching lists the rules whose matchers kapp's own code says select desired, decided on the
// unmutated object: a mutation changes one declared scalar, which no matcher synth writes reads
// (kinds and names are never a rule's paths, and kapp's emptyFieldMatcher counts no scalar as
// empty, resources/matcher_empty_field.go), so each rule matches a mutated object exactly when
// it matches this one. kapp's engine decides the mutated pair with every matcher again anyway.
func matching(matchers []kappmatch.Matcher, desired load.Object) []int {
	var out []int
	for i, m := range matchers {
		if m.MatchesObject(desired.Unstructured) {
			out = append(out, i)
		}
	}
	return out
}

// controllerRuled reports whether one of the matched rules lets the cluster win at p (a ytt rule
// holding several rules: the one of them whose paths hold p).
func controllerRuled(rules []synth.Rule, matched []int, p fielddiff.Path) bool {
	for _, ri := range matched {
		for _, part := range rules[ri].Parts() {
			if !part.ControllerWins() {
				continue
			}
			for _, q := range partPaths(part) {
				if q.String() == p.String() {
					return true
				}
			}
		}
	}
	return false
}

// rulePaths are the paths of a rule and of every rule it holds (Also).
func rulePaths(r synth.Rule) []fielddiff.Path {
	var out []fielddiff.Path
	for _, part := range r.Parts() {
		out = append(out, partPaths(part)...)
	}
	return out
}

func partPaths(r synth.Rule) []fielddiff.Path {
	out := append(append([]fielddiff.Path{}, r.Keyed...), r.Indexed...) // empty-map paths hold no declared value
	for _, p := range r.Paths {
		out = append(out, fielddiff.FromFields(p))
	}
	return out
}

// mutate returns a different value of the same type, for scalars, drawn at random for every
// call (crypto/rand): a rule keyed to a fixed marker or a fixed step (a suffix, +1) would let
// exactly the mutation check's values through and hide every change made in Git. The values
// never reach any output (findings name paths), so output stays deterministic.
func mutate(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		for {
			if s := rand.Text(); s != t {
				return s, true
			}
		}
	case int64:
		d := randomStep()
		if t > math.MaxInt64-d {
			return t - d, true
		}
		return t + d, true
	case float64:
		return t + float64(randomStep()), true
	case bool:
		return !t, true
	}
	return nil, false
}

// randomStep is a random number from 1 to 2^20.
func randomStep() int64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand.Read never fails (Go 1.24+)
	}
	return int64(binary.LittleEndian.Uint64(b[:])%(1<<20)) + 1
}
