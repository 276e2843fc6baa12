package fielddiff

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// stripKapp returns u without kapp's own map keys, and the paths it removed. A map that held
// only kapp's keys is removed too, unless keep (nil: none) holds a value at its path. The maps
// and lists on the way to a removed key are copies; everything else, and u itself when nothing is
// removed, is shared with u (performance: copying both objects whole was a sixth of the field
// diff's CPU at fleet scale, and kapp's keys sit in a few small maps).
func stripKapp(u *unstructured.Unstructured, keep map[string]any) (*unstructured.Unstructured, []Path) {
	var paths []Path
	// walk returns v stripped and whether that is a copy; at is a stack of the keys and indexes
	// on the path to v, made into a Path only for a key it removes. Performance: making every
	// map's path on the way was most of the walk's allocations.
	var walk func(v any, at []pathStep) (any, bool)
	walk = func(v any, at []pathStep) (any, bool) {
		switch t := v.(type) {
		case map[string]any:
			var out map[string]any // a copy of t, made on the first change
			for k, x := range t {
				isKapp := strings.HasPrefix(k, kappconv.Prefix)
				if !isKapp && !container(x) {
					continue
				}
				var w any
				var drop bool
				if isKapp {
					paths = append(paths, pathOf(append(at, pathStep{k, -1})))
					drop = true
				} else {
					var changed bool
					if w, changed = walk(x, append(at, pathStep{k, -1})); !changed {
						continue
					}
					wm, ok := w.(map[string]any)
					drop = ok && len(wm) == 0 && len(x.(map[string]any)) > 0 && !holds(keep, append(at, pathStep{k, -1})) // emptied by stripping: kapp's keys were all it held
				}
				if out == nil {
					out = maps.Clone(t)
				}
				if drop {
					delete(out, k)
				} else {
					out[k] = w
				}
			}
			if out == nil {
				return t, false
			}
			return out, true
		case []any:
			var out []any
			for i, x := range t {
				if !container(x) {
					continue
				}
				if w, changed := walk(x, append(at, pathStep{index: i})); changed {
					if out == nil {
						out = slices.Clone(t)
					}
					out[i] = w
				}
			}
			if out == nil {
				return t, false
			}
			return out, true
		}
		return v, false
	}
	m, changed := walk(u.Object, make([]pathStep, 0, 32))
	if !changed {
		return u, nil
	}
	return &unstructured.Unstructured{Object: m.(map[string]any)}, paths
}

// pathStep is one step of a path of field names and list indexes: a map's key (index -1) or a
// list's index.
type pathStep struct {
	key   string
	index int
}

// pathOf returns the Path of steps.
func pathOf(steps []pathStep) Path {
	// the elements point into one copy of the steps (performance: a copy of each step was an
	// allocation per element)
	own := slices.Clone(steps)
	p := make(Path, 0, len(own))
	for i := range own {
		if own[i].index < 0 {
			p = append(p, fieldpath.PathElement{FieldName: &own[i].key})
		} else {
			p = append(p, fieldpath.PathElement{Index: &own[i].index})
		}
	}
	return p
}

// holds reports whether obj (nil: nothing) has a value at the path of steps.
func holds(obj map[string]any, steps []pathStep) bool {
	if obj == nil {
		return false
	}
	var v any = obj
	for _, s := range steps {
		switch t := v.(type) {
		case map[string]any:
			if s.index >= 0 {
				return false
			}
			var ok bool
			if v, ok = t[s.key]; !ok {
				return false
			}
		case []any:
			if s.index < 0 || s.index >= len(t) {
				return false
			}
			v = t[s.index]
		default:
			return false
		}
	}
	return v != nil
}

// container reports whether v is a map or a list.
func container(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// KappKeys are the paths of kapp's own map keys in u (its labels and annotations, wherever kapp
// writes them), which Diff leaves out, sorted.
func KappKeys(u *unstructured.Unstructured) []Path {
	_, paths := stripKapp(u, nil)
	slices.SortFunc(paths, func(a, b Path) int { return strings.Compare(a.String(), b.String()) })
	return paths
}
