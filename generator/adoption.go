package generator

import (
	"github.com/rebasegen/rebasegen/generator/classify"
)

// adoptionChanges lists a resource's one-time changes (classify: adoption). The verdict judges
// such a pair with them neutralised, as kapp sees it after its first deploy, or by its fields
// alone when kapp never deployed the object.
func adoptionChanges(r classify.Resource) []Residual {
	var out []Residual
	for _, f := range r.Findings {
		if f.Class == classify.Adoption {
			out = append(out, Residual{r.ID, f})
		}
	}
	return out
}

// afterAdoption removes another tool's label or annotation (an adoption finding's path) from the
// live object, and the map when it empties, as kapp's first deploy does: its built-in rules reset
// labels and annotations to the manifest's. A label kapp writes itself (its association label)
// takes the value kapp writes (the finding's desired value).
func afterAdoption(live map[string]any, f classify.Finding) {
	p := f.Path
	if len(p) != 3 || p[1].FieldName == nil || p[2].FieldName == nil {
		return
	}
	meta, _ := live["metadata"].(map[string]any)
	m, ok := meta[*p[1].FieldName].(map[string]any)
	if !ok {
		return
	}
	if v, ok := f.Desired.(string); ok {
		m[*p[2].FieldName] = v
		return
	}
	delete(m, *p[2].FieldName)
	if len(m) == 0 {
		delete(meta, *p[1].FieldName)
	}
}
