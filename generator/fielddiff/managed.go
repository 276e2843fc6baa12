package fielddiff

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// withoutManagedFields returns l without metadata.managedFields, and their path, when d has
// metadata, declares no managedFields, and l's are entries of the schema's fields and types: the comparison finds them
// added, one atomic value, whatever they hold, and converting l finds them valid. Otherwise it
// returns l and a nil path. Performance: converting and validating a live object's
// managedFields, often the largest part of it, only to find them added.
func withoutManagedFields(d, l *unstructured.Unstructured) (*unstructured.Unstructured, Path) {
	dm, _ := d.Object["metadata"].(map[string]any)
	if _, ok := dm["managedFields"]; ok || dm == nil { // (without metadata, d's comparison adds l's whole)
		return l, nil
	}
	lm, _ := l.Object["metadata"].(map[string]any)
	mf, _ := lm["managedFields"].([]any)
	if len(mf) == 0 {
		return l, nil
	}
	for _, e := range mf {
		m, ok := e.(map[string]any)
		if !ok {
			return l, nil
		}
		for k, v := range m {
			switch k {
			case "apiVersion", "fieldsType", "manager", "operation", "subresource", "time":
				if _, ok := v.(string); !ok {
					return l, nil
				}
			case "fieldsV1":
				if _, ok := v.(map[string]any); !ok {
					return l, nil
				}
			default:
				return l, nil
			}
		}
	}
	return WithoutManagedFields(l), Path(fieldpath.MakePathOrDie("metadata", "managedFields"))
}

// WithoutManagedFields returns u without metadata.managedFields: a new top-level map and
// metadata map, every other value shared with u; u itself when it has no managedFields (or no
// metadata map).
func WithoutManagedFields(u *unstructured.Unstructured) *unstructured.Unstructured {
	meta, ok := u.Object["metadata"].(map[string]any)
	if !ok {
		return u
	}
	if _, ok := meta["managedFields"]; !ok {
		return u
	}
	m := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != "managedFields" {
			m[k] = v
		}
	}
	out := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		out[k] = v
	}
	out["metadata"] = m
	return &unstructured.Unstructured{Object: out}
}
