package argocd

// The changed manifests of the mutation check: each value the manifest declares changed in turn,
// and each map or list it declares removed, away from the live object's value.

import (
	"maps"
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// differentFrom is a mutation of v (verdict.MutateAwayFrom) that is not the live object's value
// at p (by key): a change to the live value is no change Argo CD could show. False when there is
// none (a bool whose other value is live's).
func differentFrom(v any, live map[string]any, p fielddiff.Path) (any, bool) {
	have, inLive := p.Get(live)
	m, _, away := verdict.MutateAwayFrom(v, have, inLive)
	return m, away
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
