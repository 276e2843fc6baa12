package argocd

// The changed manifests of the mutation check: each value the manifest declares changed in turn,
// and each map or list it declares removed, away from the live object's value.

import (
	"maps"
	"math/rand/v2"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// differentFrom is a mutation of v (verdict.MutateAwayFrom) that is not the live object's value
// at p (by key): a change to the live value is no change Argo CD could show. False when there is
// none (a bool whose other value is live's).
func differentFrom(v any, live map[string]any, p fielddiff.Path) (any, bool) {
	have, inLive := p.Get(live)
	if q, ok := quantityDraw(v, have); ok {
		return q, true
	}
	m, _, away := verdict.MutateAwayFrom(v, have, inLive)
	return m, away
}

// quantityDraw is v, a string that reads as a resource quantity, with its last run of digits
// drawn anew: the same unit and form, another amount than v's and live's. verdict's draw (the
// last run of letters and digits anew: 1000m -> 4821q) mostly makes no quantity, which the API
// server refuses: no change made in Git holds one. Argo CD's normalisation cannot decode such an
// object into its type (gitops-engine diff.remarshal) and compares it as written, every other
// quantity in its written form: it then shows a change at another path whatever the ignores hide
// at this one, and the verdict would depend on the draw. False when v is no such string.
func quantityDraw(v, live any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	old, err := resource.ParseQuantity(s)
	if err != nil {
		return "", false
	}
	digit := func(b byte) bool { return b >= '0' && b <= '9' }
	end := len(s)
	for end > 0 && !digit(s[end-1]) {
		end--
	}
	start := end
	for start > 0 && digit(s[start-1]) {
		start--
	}
	have, inLive := fielddiff.QuantityOf(live)
	for range 64 {
		b := []byte(s)
		for i := start; i < end; i++ {
			b[i] = '0' + byte(rand.IntN(10))
		}
		q, err := resource.ParseQuantity(string(b))
		if err == nil && q.Cmp(old) != 0 && !(inLive && q.Cmp(have) == 0) {
			return string(b), true
		}
	}
	return "", false
}

// scalars are the paths (by index) of the scalar values obj declares, but for the object's
// identity (apiVersion, kind, metadata.name and metadata.namespace) and status.
func scalars(v any, at fielddiff.Path) []fielddiff.Path {
	var out []fielddiff.Path
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := with(at, fieldpath.PathElement{FieldName: &k})
			if identity(p) {
				continue
			}
			out = append(out, scalars(t[k], p)...)
		}
	case []any:
		for i := range t {
			out = append(out, scalars(t[i], with(at, fieldpath.PathElement{Index: &i}))...)
		}
	case nil:
	default:
		out = append(out, at)
	}
	return out
}

// declared are the paths (by index) of every map entry and list item obj declares below its top
// level, but for the object's identity and status, parents before their children.
func declared(v any, at fielddiff.Path) []fielddiff.Path {
	var out []fielddiff.Path
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			p := with(at, fieldpath.PathElement{FieldName: &k})
			if identity(p) || p.String() == "metadata" {
				continue
			}
			out = append(out, p)
			out = append(out, declared(t[k], p)...)
		}
	case []any:
		for i := range t {
			p := with(at, fieldpath.PathElement{Index: &i})
			out = append(out, p)
			out = append(out, declared(t[i], p)...)
		}
	}
	return out
}

// remove deletes the value at p (by index) from obj, reporting whether there was one.
func remove(obj map[string]any, p fielddiff.Path) bool {
	if len(p) == 0 {
		return false
	}
	var parent any = obj
	if len(p) > 1 {
		var ok bool
		if parent, ok = p[:len(p)-1].Get(obj); !ok {
			return false
		}
	}
	last := p[len(p)-1]
	switch t := parent.(type) {
	case map[string]any:
		if last.FieldName == nil {
			return false
		}
		if _, ok := t[*last.FieldName]; !ok {
			return false
		}
		delete(t, *last.FieldName)
		return true
	case []any:
		if last.Index == nil || *last.Index >= len(t) || len(p) < 2 {
			return false
		}
		return p[:len(p)-1].Set(obj, slices.Delete(slices.Clone(t), *last.Index, *last.Index+1))
	}
	return false
}

func identity(p fielddiff.Path) bool {
	switch s := p.String(); s {
	case "apiVersion", "kind", "metadata.name", "metadata.namespace", "status":
		return true
	}
	return false
}
