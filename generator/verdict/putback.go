package verdict

// The rules that make the API server put a removed field back: it derives some fields from others
// on every write (a pod spec's serviceAccountName from its deprecated alias serviceAccount), so a
// rule copying the live alias keeps a field Git removed though the object kapp applies lacks it.

import (
	"strings"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// removal is blame's answer for a removal at p (by key) the rules keep: where no copy rule
// matching the resource reaches p, the rules whose copies make the server put it back (putBack;
// derived true, for the finding to say so), else those responsible names.
func (b *blame) removal(r classify.Resource, p fielddiff.Path, store func(map[string]any) (map[string]any, bool)) (names string, at RuleAt, derived bool) {
	if store != nil && !b.resource(r).copied(p) {
		if names, at, ok := b.putBack(r, p, store); ok {
			return names, at, true
		}
	}
	names, at = b.responsible(r, p)
	return names, at, false
}

// derivedHow is removedHow where the rules copy what the API server derives the removed field
// from: the object kapp applies lacks it, and the server's write puts it back.
const derivedHow = "the object kapp applies holds what the API server derives the field from (a deprecated alias of it) once the manifest no longer declares it (a removal made in Git): the server puts the field back, and it is never removed"

// putBack names the rules whose step in kapp's rebase of r's manifest without the value at p
// makes the object the API server makes of the one kapp applies (store) hold p again, as the
// server makes it of what the step before left: the server derives p from what those rules
// wrote. ok is false where none does (then blame's answer for p stands).
func (b *blame) putBack(r classify.Resource, p fielddiff.Path, store func(map[string]any) (map[string]any, bool)) (string, RuleAt, bool) {
	desired, live, err := r.Objects()
	if err != nil || store == nil {
		return "", RuleAt{}, false
	}
	p.Remove(desired.Object)
	x := &blamed{rules: b.rules, desired: desired.Unstructured}
	x.trace(b, live.Unstructured)
	if x.from == nil {
		return "", RuleAt{}, false
	}
	held := map[int]bool{} // by step (-1: the prepared manifest): the server's object holds p
	holds := func(k int) bool {
		h, ok := held[k]
		if !ok {
			obj := x.prepared
			if k >= 0 {
				obj = x.steps[k].After
			}
			if made, known := store(asDecoded(obj)); known {
				_, h = p.GetDeclared(made)
			}
			held[k] = h
		}
		return h
	}
	var names []string
	var at RuleAt
	for i, rule := range x.rules {
		if !x.traced(i) || rule.lastAppliedCheck {
			continue
		}
		before, after := x.around(i)
		if after >= 0 && holds(after) && !holds(before) {
			if len(names) == 0 {
				at = rule.At
			}
			names = append(names, rule.At.String()+" ("+rule.Describe()+")")
		}
	}
	return strings.Join(names, "; "), at, len(names) > 0
}

// wouldDeriveHow is derivedHow for the mutation check's removal, which no manifest made.
const wouldDeriveHow = "if Git removed the field from the manifest, the object kapp applies would hold what the API server derives the field from (a deprecated alias of it): the server would put the field back, and it would never be removed"
