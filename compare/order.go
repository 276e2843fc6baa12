package compare

// The order of list items: a comparison by merge key does not see it, a write keeps its own.

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// reordered returns the lists whose items desired declares in another order than live holds
// them (list items matched by their merge keys, as the comparison matches them): a write keeps
// the order it writes (an apply its own items', an update every item's), which a comparison by
// key does not see.
func reordered(desired, live *unstructured.Unstructured) []fielddiff.Path {
	var out []fielddiff.Path
	var walk func(d, l any, dp, lp fielddiff.Path)
	walk = func(d, l any, dp, lp fielddiff.Path) {
		switch dv := d.(type) {
		case map[string]any:
			lv, ok := l.(map[string]any)
			if !ok {
				return
			}
			for k, x := range dv {
				if y, ok := lv[k]; ok {
					e := fieldpath.PathElement{FieldName: &k}
					walk(x, y, append(dp[:len(dp):len(dp)], e), append(lp[:len(lp):len(lp)], e))
				}
			}
		case []any:
			lv, ok := l.([]any)
			if !ok {
				return
			}
			at := make(map[string]int, len(lv))
			for j := range lv {
				at[itemKey(live, lp, j)] = j
			}
			last, inOrder := -1, true
			for i := range dv {
				j, ok := at[itemKey(desired, dp, i)]
				if !ok {
					continue
				}
				if j < last {
					inOrder = false
				}
				last = j
				walk(dv[i], lv[j], append(dp[:len(dp):len(dp)], fieldpath.PathElement{Index: &i}), append(lp[:len(lp):len(lp)], fieldpath.PathElement{Index: &j}))
			}
			if !inOrder {
				out = append(out, fielddiff.ByKey(desired, dp))
			}
		}
	}
	walk(desired.Object, live.Object, nil, nil)
	slices.SortFunc(out, func(a, b fielddiff.Path) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// itemKey names the i-th item of the list at p (a path by index) as the comparison does: by
// its merge keys, its value in a set, or its index in an atomic list.
func itemKey(u *unstructured.Unstructured, p fielddiff.Path, i int) string {
	k := fielddiff.ByKey(u, append(p[:len(p):len(p)], fieldpath.PathElement{Index: &i}))
	return fieldpath.Path(k[len(k)-1:]).String()
}
