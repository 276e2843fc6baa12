package verdict

// The mutation check's removals: the declared values a rule from the live object may put back
// once Git removes them, judged by kapp's rebase and the server's own defaults.

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// apart returns one resource's removals as kapp's rebase is asked about them: each alone where
// a rule that may put one back is a hand-written ytt overlay (touch.apart), and those a matcher
// reads (read: touch.readAt), under metadata (kapp's built-in rules match on annotations, and
// its deploy reads them) or ending in a list item; the others together (layered), with the
// annotations and labels no matcher reads (shared) but one of each map, removed alone, which
// keeps the map non-empty in the others' rebase (an emptyFieldMatcher may read it).
func apart(ms []mutation, alone bool, read, shared func(fielddiff.Path) bool) []mutation {
	var out, together []mutation
	kept := map[string]bool{} // the maps one entry of which is removed alone
	for _, m := range ms {
		switch {
		case !alone && shared(m.path) && kept[*m.path[1].FieldName]:
			together = append(together, m)
		case !alone && shared(m.path):
			kept[*m.path[1].FieldName] = true
			out = append(out, m)
		case alone || read(m.path) || m.path.HasPrefix(fielddiff.FromFields([]string{"metadata"})) || m.path[len(m.path)-1].FieldName == nil:
			out = append(out, m)
		default:
			together = append(together, m)
		}
	}
	return append(out, layered(together)...)
}

// layered groups one resource's removals into joint probes (members), none a member of the
// same probe as a value above or below it (removing a map takes what it holds with it): each
// probe holds the removals with as many others above them. Where every rule that may put a
// removal back acts on its path whatever the rest of the object holds, the probes ask as much
// as each removal alone, in as many rebases as the removals nest deep, not one each.
func layered(ms []mutation) []mutation {
	var out []mutation
	for i, m := range ms {
		depth := 0
		for j, o := range ms {
			if j != i && len(o.path) < len(m.path) && m.path.HasPrefix(o.path) {
				depth++
			}
		}
		for len(out) <= depth {
			out = append(out, mutation{r: m.r, single: m.single, members: []mutation{}, lives: m.lives, beside: m.beside})
		}
		out[depth].members = append(out[depth].members, m)
	}
	return out
}

// removalsKept asks kapp's rebase which removals (alone, or members of a joint probe) the rules
// in force put back and kapp's built-in rules alone do not, and keeps those the server would
// not give back itself: a removed value some of which the object kapp applies still holds (or,
// for a removal with mutation.stored, the object the API server makes of it: a field it derives
// from one a rule copied), where the server's defaulting code (classify.Removals, the classifier's) would make another
// value or none (heldNotGiven). A joint probe kapp fails on is asked about member
// by member; a removal kapp fails on alone is no hidden change (kapp's deploy stops there).
func (v *Verdict) removalsKept(in Input, ms []mutation, configs []*unstructured.Unstructured) ([]mutation, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	if err := mutatedWithinBudget(in.Rules, withLives(ms)); err != nil {
		return nil, err
	}
	withRules, err := rebasedAll(ms, configs)
	if err != nil {
		return nil, err
	}
	var suspects, retry []mutation
	var at []int
	for i, m := range ms {
		r := withRules[i]
		switch {
		case r.failed && m.members != nil:
			retry = append(retry, m.members...)
		case r.failed:
		case r.rewrites != 0 || anySet(r.members):
			suspects, at = append(suspects, m), append(at, i)
		}
	}
	builtin, err := rebasedAll(suspects, nil)
	if err != nil {
		return nil, err
	}
	v.MutationProbes += len(withLives(ms)) + len(withLives(suspects))
	var candidates []mutation
	var keptAt []any // what kapp applies where each candidate was removed
	for j, m := range suspects {
		rules, alone := withRules[at[j]], builtin[j]
		switch {
		case alone.failed && m.members != nil:
			retry = append(retry, m.members...)
		case alone.failed:
		case m.members != nil:
			for k, member := range m.members {
				if rules.members[k]&^alone.members[k] != 0 {
					candidates, keptAt = append(candidates, member), append(keptAt, rules.membersKept[k])
				}
			}
		case rules.rewrites&^alone.rewrites != 0:
			candidates, keptAt = append(candidates, m), append(keptAt, rules.kept)
		}
	}
	var out []mutation
	if len(candidates) > 0 {
		defaults, err := classify.NewRemovals(in.Report)
		if err != nil {
			return nil, err
		}
		decoded := map[string]*unstructured.Unstructured{} // each resource once, not once per removal
		for i, m := range candidates {
			desired, ok := decoded[m.r.ID.String()]
			if !ok {
				d, _, err := m.r.Objects()
				if err != nil {
					return nil, err
				}
				desired, decoded[m.r.ID.String()] = d.Unstructured, d.Unstructured
			}
			givesBack := func(p fielddiff.Path) bool { return defaults.GivesBack(desired, p) }
			if heldNotGiven(keptAt[i], m.value, m.path, givesBack) {
				out = append(out, m)
			}
		}
	}
	if len(retry) > 0 {
		for i := range retry {
			retry[i].single = true // its own rebase: kapp failed on it with the others
		}
		more, err := v.removalsKept(in, retry, configs)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

func anySet(bits []uint8) bool {
	for _, b := range bits {
		if b != 0 {
			return true
		}
	}
	return false
}

// heldNotGiven reports whether kept, what the object kapp applies holds where the manifest no
// longer declares removed (at p, by index), holds one of removed's scalars at the same place
// with the same value that the server's defaults would not give back were Git to remove that
// scalar alone (givesBack): a copy of the live value the server would set again hides nothing.
// Each scalar is judged alone, not by defaulting the manifest without the whole of removed: a
// default may derive from a sibling removed with it (a CRD's names.listKind from names.kind),
// and a map Git removes is a removal of each of its values to the copy, which puts back only
// those at its paths.
func heldNotGiven(kept, removed any, p fielddiff.Path, givesBack func(fielddiff.Path) bool) bool {
	switch r := removed.(type) {
	case map[string]any:
		k, _ := kept.(map[string]any)
		for _, key := range slices.Sorted(maps.Keys(r)) {
			if kv, ok := k[key]; ok && heldNotGiven(kv, r[key], with(p, fieldpath.PathElement{FieldName: &key}), givesBack) {
				return true
			}
		}
		return false
	case []any:
		k, _ := kept.([]any)
		for i := range min(len(k), len(r)) {
			if heldNotGiven(k[i], r[i], with(p, fieldpath.PathElement{Index: &i}), givesBack) {
				return true
			}
		}
		return false
	}
	return fielddiff.Equal(kept, removed) && !givesBack(p)
}

// rewrittenIn reports whether obj, the object kapp applies (its numbers as load decodes them),
// does not hold m's changed value, or, for a removal, holds some of the removed value (kept:
// what it holds there). By key: a rule may reorder a list (an injected sidecar first).
func (m mutation) rewrittenIn(obj map[string]any) (rewritten bool, kept any) {
	v, ok := m.key.GetDeclared(obj)
	if m.removed {
		return ok && holdsSome(v, m.value), v
	}
	return !ok || !fielddiff.Equal(v, m.value), nil
}
