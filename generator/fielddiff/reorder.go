package fielddiff

import (
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
)

// Reorder is an associative list (containers by name, env by name...) whose items the manifest
// lists in another order than kapp's last apply did, while the live object keeps that order.
// Diff pairs such items by their merge keys, so the new order is no Delta; kapp diffs the YAML
// text of the two objects, where the order of a list's items is a difference, and applies it.
type Reorder struct {
	Path Path // the list (items of the lists above it by merge key)
	// Desired, Original: the merge keys of the items all three objects hold, as paths render
	// them (name=web), in the manifest's order and in kapp's last apply's (the live object's).
	Desired, Original []string
}

// Reordered returns the associative lists, in the built-in schema of desired's kind, whose items
// desired lists in another order than original, where live lists them in original's order: a
// change of order made in Git. Only the items all three hold are compared: an item added or
// removed is a Delta of its own, and the order the server or a controller gives the live object
// (live differing from original) is not Git's. Objects the built-in schema does not know, or of
// another apiVersion than live's, have none.
func Reordered(desired, original, live *unstructured.Unstructured) []Reorder {
	if desired.GetAPIVersion() != live.GetAPIVersion() || desired.GetAPIVersion() != original.GetAPIVersion() {
		return nil
	}
	st, err := builtinType(desired.GetAPIVersion(), desired.GetKind())
	if err != nil {
		return nil
	}
	var out []Reorder
	var walk func(d, o, l any, tr schema.TypeRef, at Path)
	walk = func(d, o, l any, tr schema.TypeRef, at Path) {
		atom, ok := st.schema.Resolve(tr)
		if !ok {
			return
		}
		switch dv := d.(type) {
		case map[string]any:
			om, _ := o.(map[string]any)
			lm, _ := l.(map[string]any)
			if atom.Map == nil || atom.Map.ElementRelationship == schema.Atomic || om == nil || lm == nil {
				return
			}
			keys := make([]string, 0, len(dv))
			for k := range dv {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				ft := atom.Map.ElementType
				if f, ok := atom.Map.FindField(k); ok {
					ft = f.Type
				}
				k := k
				walk(dv[k], om[k], lm[k], ft, append(at[:len(at):len(at)], fieldpath.PathElement{FieldName: &k}))
			}
		case []any:
			ol, _ := o.([]any)
			ll, _ := l.([]any)
			if atom.List == nil || atom.List.ElementRelationship != schema.Associative || ol == nil || ll == nil {
				return
			}
			dk, ok1 := itemKeys(st.schema, atom.List, dv)
			okeys, ok2 := itemKeys(st.schema, atom.List, ol)
			lk, ok3 := itemKeys(st.schema, atom.List, ll)
			if !ok1 || !ok2 || !ok3 {
				return // duplicate keys: the server refuses them, and no order can be told
			}
			// by position maps (performance: lists of many thousand items, searched per item)
			dAt, oAt, lAt := positions(dk), positions(okeys), positions(lk)
			common := func(keys []string) []string {
				return slices.DeleteFunc(slices.Clone(keys), func(k string) bool {
					_, d := dAt[k]
					_, o := oAt[k]
					_, l := lAt[k]
					return !d || !o || !l
				})
			}
			if cd, co := common(dk), common(okeys); !slices.Equal(cd, co) && slices.Equal(co, common(lk)) {
				out = append(out, Reorder{Path: slices.Clone(at), Desired: cd, Original: co})
			}
			for i, item := range dv {
				oi, inO := oAt[dk[i]]
				lj, inL := lAt[dk[i]]
				if !inO || !inL {
					continue
				}
				walk(item, ol[oi], ll[lj], atom.List.ElementType, append(at[:len(at):len(at)], itemKey(st.schema, atom.List, item)))
			}
		}
	}
	walk(desired.Object, original.Object, live.Object, st.typeRef, nil)
	return out
}

// itemKeys renders the merge key of each item of an associative list, and whether they are all
// distinct.
func itemKeys(s *schema.Schema, list *schema.List, items []any) ([]string, bool) {
	keys := make([]string, len(items))
	seen := make(map[string]bool, len(items))
	for i, item := range items {
		keys[i] = itemKeyString(itemKey(s, list, item))
		if seen[keys[i]] {
			return nil, false
		}
		seen[keys[i]] = true
	}
	return keys, true
}

// positions maps each key to its index.
func positions(keys []string) map[string]int {
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		at[k] = i
	}
	return at
}

// itemKeyString is a list item's merge key as paths render it, without the brackets: name=web.
func itemKeyString(pe fieldpath.PathElement) string {
	s := Path{pe}.String()
	return s[1 : len(s)-1]
}

// OrderLike puts the items of the associative list at p (by merge key) in desired in the order
// live lists them, the items live lacks after them in their own order: the manifest with a change
// of order made in Git undone (Reordered). It reports whether desired has such a list there.
func OrderLike(desired, live *unstructured.Unstructured, p Path) bool {
	st, err := builtinType(desired.GetAPIVersion(), desired.GetKind())
	if err != nil {
		return false
	}
	tr := st.typeRef
	for _, pe := range p {
		atom, ok := st.schema.Resolve(tr)
		switch {
		case !ok:
			return false
		case pe.FieldName != nil && atom.Map != nil:
			tr = atom.Map.ElementType
			if f, ok := atom.Map.FindField(*pe.FieldName); ok {
				tr = f.Type
			}
		case pe.FieldName == nil && atom.List != nil:
			tr = atom.List.ElementType
		default:
			return false
		}
	}
	atom, ok := st.schema.Resolve(tr)
	if !ok || atom.List == nil || atom.List.ElementRelationship != schema.Associative {
		return false
	}
	dv, _ := p.Get(desired.Object)
	lv, _ := p.Get(live.Object)
	dl, _ := dv.([]any)
	ll, _ := lv.([]any)
	if dl == nil {
		return false
	}
	dk, ok1 := itemKeys(st.schema, atom.List, dl)
	lk, ok2 := itemKeys(st.schema, atom.List, ll)
	if !ok1 || !ok2 {
		return false
	}
	rank := func(k string) int {
		if i := slices.Index(lk, k); i >= 0 {
			return i
		}
		return len(lk)
	}
	order := indexes(len(dl))
	slices.SortStableFunc(order, func(i, j int) int { return rank(dk[i]) - rank(dk[j]) })
	sorted := make([]any, len(dl))
	for i, j := range order {
		sorted[i] = dl[j]
	}
	copy(dl, sorted) // in place: the list is desired's own
	return true
}
