package verdict

import (
	"slices"
	"strings"
	"sync"

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
	blame := newBlame(in)
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
			blamed := blame.resource(r)
			k := Kept{Hidden: Hidden{Resource: d.Resource, Path: d.Finding.Path.String()}, Copied: blamed.copied(d.Finding.Path)}
			k.Rule, k.At = blamed.responsible(d.Finding.Path, nil)
			v.DriftKept = append(v.DriftKept, k)
		}
	}
	return nil
}

// keptAdoption asks kapp's engine what its deploy applies to each resource with adoption changes:
// the resource kapp makes of the manifest with the rules in force (verify.Rebased), the one it
// updates the live object with. Where that still holds another tool's label or annotation as the
// live object has it, kapp's deploy keeps it rather than removing it once (a copy of
// metadata.annotations from the live object keeps Helm's release annotation: newcomer2 finding
// 11): the change is drift the rules keep, named with them, not an adoption change.
func (v *Verdict) keptAdoption(in Input, configs []*unstructured.Unstructured) error {
	byID := map[string]classify.Resource{}
	for _, r := range in.Report.Resources {
		byID[r.ID.String()] = r
	}
	var ids []string // one pair per resource: kapp's engine diffs one app
	for _, a := range v.Adoption {
		if id := a.Resource.String(); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	liveAt := make([]any, len(v.Adoption)) // each change's live value (a finding's may be masked)
	for j, a := range v.Adoption {
		if _, live, err := byID[a.Resource.String()].Objects(); err == nil {
			liveAt[j], _ = fielddiff.NewLookup(live.Object).Get(a.Finding.Path)
		}
	}
	held := make([]map[string]bool, len(ids)) // adoption paths the rebased resource holds, per resource
	var mu sync.Mutex
	err := verify.Rebased(len(ids), func(i int) (verify.Pair, error) {
		desired, live, err := byID[ids[i]].Objects()
		if err != nil {
			return verify.Pair{}, err
		}
		return pairOf(desired, live), nil
	}, configs, func(i int, _ verify.Base, obj map[string]any, err error) {
		if err != nil || obj == nil {
			return // kapp's engine reports a failing pair on the verification
		}
		at := fielddiff.NewLookup(asDecoded(obj))
		for j, a := range v.Adoption {
			if a.Resource.String() != ids[i] {
				continue
			}
			if got, ok := at.Get(a.Finding.Path); ok && liveAt[j] != nil && fielddiff.Equal(got, liveAt[j]) {
				mu.Lock()
				if held[i] == nil {
					held[i] = map[string]bool{}
				}
				held[i][a.Finding.Path.String()] = true
				mu.Unlock()
			}
		}
	})
	if err != nil {
		return err
	}
	var once []Residual
	blame := newBlame(in)
	for _, a := range v.Adoption {
		i := slices.Index(ids, a.Resource.String())
		if !held[i][a.Finding.Path.String()] {
			once = append(once, a)
			continue
		}
		r := byID[a.Resource.String()]
		f := a.Finding
		tool, _, _ := strings.Cut(f.Evidence, "; kapp resets")
		f.Evidence = tool + "; the resource kapp's deploy applies with the rules in force holds it: kapp keeps it, not removes it once"
		v.Drift = append(v.Drift, Residual{a.Resource, f})
		blamed := blame.resource(r)
		k := Kept{Hidden: Hidden{Resource: a.Resource, Path: f.Path.String()}, Copied: blamed.copied(f.Path)}
		k.Rule, k.At = blamed.responsible(f.Path, nil)
		v.DriftKept = append(v.DriftKept, k)
	}
	v.Adoption = once
	return nil
}
