package verdict

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verify"
)

// pendingHidden returns the changes made in Git that kapp, under the rules in force, does not
// show. The mutation check changes declared values to ones no rule can predict; this asks about
// the change Git actually holds, which a rule can single out, and a removal, which no declared
// value stands for. Each pending change is judged on its own, whatever else kapp updates on the
// resource: the manifest with that one field set back to what kapp last applied (the live value)
// is the unchanged pair, the manifest the changed one (verify.Shown). A change kapp's built-in
// rules alone do not show either is kapp's own behaviour, not a rule's, and is left out.
func (v *Verdict) pendingHidden(in Input, configs []*unstructured.Unstructured) ([]Hidden, error) {
	byID := map[string]classify.Resource{}
	for _, r := range in.Report.Resources {
		byID[r.ID.String()] = r
	}
	var all []mutation
	for _, p := range v.Pending {
		r := byID[p.Resource.String()]
		desired, live, err := r.Objects()
		if err != nil {
			return nil, err
		}
		all = append(all, mutation{r: r, path: p.Finding.Path, what: p.Finding.Path.String(), single: !batchable(desired.Unstructured, live.Unstructured)})
	}
	if len(all) == 0 {
		return nil, nil
	}
	shownWith := func(configs []*unstructured.Unstructured) ([]bool, error) {
		shown := make([]bool, len(all))
		for _, call := range calls(all) {
			reverted, _, err := verify.Baselines(len(call), func(i int) (verify.Pair, error) {
				m := all[call[i]]
				desired, live, err := m.r.Objects()
				if err != nil {
					return verify.Pair{}, err
				}
				revert(desired.Object, live.Object, byIndex(desired.Object, m.path))
				return verify.Pair{Desired: desired.Unstructured, Live: live.Unstructured}, nil
			}, configs, nil)
			if err != nil {
				return nil, err
			}
			res, err := verify.Shown(len(call), func(i int) (verify.Pair, error) {
				return verifyPair(all[call[i]].r.Pair, nil, nil)
			}, func(i int) verify.Result { return reverted[i] }, configs, nil)
			if err != nil {
				return nil, err
			}
			for i, j := range call {
				shown[j] = res[i]
			}
		}
		return shown, nil
	}
	inForce, err := shownWith(configs)
	if err != nil {
		return nil, err
	}
	builtin, err := shownWith(nil)
	if err != nil {
		return nil, err
	}
	var out []Hidden
	for i, m := range all {
		if builtin[i] && !inForce[i] {
			h := Hidden{Resource: m.r.ID, Path: m.what}
			h.Rule, h.At = responsible(in.Rules, m.r, m.path)
			out = append(out, h)
		}
	}
	return out, nil
}

// revert sets the field at p (by index) in desired back to what kapp last applied, which a
// pending change's live object still holds: its value added where the manifest dropped the
// field, else as neutralise sets it.
func revert(desired, live map[string]any, p fielddiff.Path) {
	v, inLive := p.Get(live)
	parent, ok := p[:len(p)-1].Get(desired)
	m, isMap := parent.(map[string]any)
	if name := p[len(p)-1].FieldName; inLive && ok && isMap && name != nil {
		m[*name] = v
		return
	}
	neutralise(desired, live, p)
}
