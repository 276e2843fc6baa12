package verdict

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verify"
)

// keptDrift asks kapp's engine, for each drift of a resource kapp labelled, whether the rules in
// force keep the person's change: the pair with every other difference no rule is meant to
// remove set to its live value. kapp keeping it means kapp will not revert the drift (a copy
// from the live object of a field the server defaults keeps whatever a person set there), so
// the drift is named with the rules that keep it (DriftKept).
func (v *Verdict) keptDrift(in Input, configs []*unstructured.Unstructured) error {
	byID := map[string]classify.Resource{}
	for _, r := range in.Report.Resources {
		byID[r.ID.String()] = r
	}
	var asked [][]int // v.Drift indexes, each resource at most once a round (kapp's engine diffs one app)
	round := map[string]int{}
	for i, d := range v.Drift {
		id := d.Resource.String()
		if r, ok := byID[id]; !ok || !kappLabelled(r) || d.Finding.Path == nil {
			continue
		}
		if round[id] == len(asked) {
			asked = append(asked, nil)
		}
		asked[round[id]] = append(asked[round[id]], i)
		round[id]++
	}
	for _, ask := range asked {
		res, err := verify.VerifyEach(len(ask), func(i int) (verify.Pair, error) {
			d := v.Drift[ask[i]]
			r := byID[d.Resource.String()]
			others := slices.DeleteFunc(slices.Clone(r.Findings), func(f classify.Finding) bool {
				return f.Ruled(in.IncludeUnknown) || f.Path.String() == d.Finding.Path.String()
			})
			return neutralisedPair(r, others)
		}, configs, nil)
		if err != nil {
			return err
		}
		for i, r := range res {
			if !kept(r) {
				continue
			}
			d := v.Drift[ask[i]]
			r := byID[d.Resource.String()]
			k := Kept{Hidden: Hidden{Resource: d.Resource, Path: d.Finding.Path.String()}, Copied: copied(in.Rules, r, d.Finding.Path)}
			k.Rule, k.At = responsible(in.Rules, r, d.Finding.Path)
			v.DriftKept = append(v.DriftKept, k)
		}
	}
	return nil
}

// copied reports whether a copy rule matching r has a path reaching p.
func copied(rules []Rule, r classify.Resource, p fielddiff.Path) bool {
	desired, live, err := r.Objects()
	if err != nil {
		return false
	}
	for _, rule := range rules {
		if rule.ytt == nil && rule.keys == nil && rule.index >= 0 && rule.Matches(desired.Unstructured) && rule.reaches(p, desired.Object, live.Object) {
			return true
		}
	}
	return false
}
