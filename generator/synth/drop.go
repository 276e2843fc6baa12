package synth

// Remove rules for declared empty values the server drops ([], {} or null declared, the live
// object lacking the field): removed only while the manifest's value is empty.

import "github.com/rebasegen/rebasegen/generator/fielddiff"

// IsEmptyValue reports whether v is empty to kapp's emptyFieldMatcher: null, [] or {}
// (resources/matcher_empty_field.go), never a scalar.
func IsEmptyValue(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// removable reports whether kapp's remove and emptyFieldMatcher can name p: map keys and list
// indexes, ending in a map key (no item selected by its key or value).
func removable(p fielddiff.Path) bool {
	for _, pe := range p {
		if pe.FieldName == nil && pe.Index == nil {
			return false
		}
	}
	return len(p) > 0 && p[len(p)-1].FieldName != nil
}

// dropRules are the remove rules of the declared empty values the server drops, one per path
// (each with its own emptyFieldMatcher), naming the resources that declare it.
func (g *group) dropRules() []Rule {
	var out []Rule
	for _, k := range sortedKeys(g.dropped) {
		r := g.rule
		r.Drop = g.dropped[k]
		r.Matchers = []Matcher{and(append(names(sortedIDs(g.droppedAt[k]), g.kind), Matcher{EmptyField: &EmptyField{Path: KappPath(r.Drop)}})...)}
		out = append(out, r)
	}
	return out
}
