package fielddiff

import (
	"slices"
	"strconv"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Path is a structured-merge-diff field path: list items of associative lists are selected by
// their merge keys, other list items by index.
type Path fieldpath.Path

// String renders the path dotted, with list items as containers[name=web] or [i], and map keys
// that are not plain words quoted: metadata.annotations["deployment.kubernetes.io/revision"].
func (p Path) String() string { return p.render(nil) }

// render is String; with ends, it also appends the length of the rendering of each of p's
// prefixes, p[:1], p[:2]..., which is where the path's own rendering holds it.
func (p Path) render(ends *[]int) string {
	// (built in a buffer on the stack, one allocation for the result: rendering is frequent)
	var buf [128]byte
	b := buf[:0]
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			if isPlainKey(*pe.FieldName) {
				if len(b) > 0 {
					b = append(b, '.')
				}
				b = append(b, *pe.FieldName...)
			} else {
				b = append(strconv.AppendQuote(append(b, '['), *pe.FieldName), ']')
			}
		case pe.Key != nil:
			b = append(b, '[')
			for i, f := range *pe.Key {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(append(append(b, f.Name...), '='), scalar(f.Value)...)
			}
			b = append(b, ']')
		case pe.Index != nil:
			b = append(strconv.AppendInt(append(b, '['), int64(*pe.Index), 10), ']')
		case pe.Value != nil:
			b = append(append(append(b, "[="...), scalar(*pe.Value)...), ']')
		}
		if ends != nil {
			*ends = append(*ends, len(b))
		}
	}
	return string(b)
}

func scalar(v value.Value) string {
	if v.IsString() {
		return v.AsString()
	}
	return value.ToString(v)
}

// Fields returns the map keys of the path when it selects no list item, for kapp paths.
func (p Path) Fields() ([]string, bool) {
	out := make([]string, 0, len(p))
	for _, pe := range p {
		if pe.FieldName == nil {
			return nil, false
		}
		out = append(out, *pe.FieldName)
	}
	return out, true
}

// HasPrefix reports whether q is p or one of its ancestors.
func (p Path) HasPrefix(q Path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if !q[i].Equals(p[i]) {
			return false
		}
	}
	return true
}

// Get returns the value at the path in an unstructured object.
func (p Path) Get(obj map[string]any) (any, bool) { return p.get(obj, false) }

// GetDeclared is Get for a manifest: when no item holds the whole key, a key field the item
// leaves out matches, as structured-merge-diff fills key fields from their schema defaults (a
// port declared without protocol is spec.ports[port=80,protocol=TCP]).
func (p Path) GetDeclared(obj map[string]any) (any, bool) {
	if v, ok := p.get(obj, false); ok {
		return v, true
	}
	return p.get(obj, true)
}

func (p Path) get(obj map[string]any, lenient bool) (any, bool) {
	var cur any = obj
	for _, pe := range p {
		var ok bool
		if cur, ok = step(cur, pe, lenient); !ok {
			return nil, false
		}
	}
	return cur, true
}

// step returns the value pe selects in cur.
func step(cur any, pe fieldpath.PathElement, lenient bool) (any, bool) {
	switch {
	case pe.FieldName != nil:
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok := m[*pe.FieldName]
		return v, ok
	case pe.Index != nil:
		l, ok := cur.([]any)
		if !ok || *pe.Index >= len(l) {
			return nil, false
		}
		return l[*pe.Index], true
	case pe.Key != nil:
		return findByKey(cur, *pe.Key, lenient)
	case pe.Value != nil:
		return findValue(cur, *pe.Value)
	}
	return cur, true
}

func findByKey(list any, key value.FieldList, lenient bool) (any, bool) {
	return itemAt(list, indexByKey(list, key, lenient))
}

func findValue(list any, v value.Value) (any, bool) { return itemAt(list, indexOfValue(list, v)) }

// itemAt is list's item i; false for i < 0.
func itemAt(list any, i int) (any, bool) {
	if i < 0 {
		return nil, false
	}
	return list.([]any)[i], true
}

// indexByKey is the index of list's first item holding key, -1 for none; lenient: a key field the
// item leaves out matches.
func indexByKey(list any, key value.FieldList, lenient bool) int {
	l, _ := list.([]any)
	for i, item := range l {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		match := true
		for _, f := range key {
			v, ok := m[f.Name]
			if !ok && lenient {
				continue
			}
			if !ok || !value.Equals(value.NewValueInterface(v), f.Value) {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// indexOfValue is the index of list's first item equal to v, -1 for none.
func indexOfValue(list any, v value.Value) int {
	l, _ := list.([]any)
	for i, item := range l {
		if value.Equals(value.NewValueInterface(item), v) {
			return i
		}
	}
	return -1
}

// Steps is the longest prefix of p that obj holds, as map keys (string) and list indexes (int): an
// item its merge key or value selects is named by where obj holds it, for the line of the field in
// the file obj was read from (lint.Lines); for a field obj lacks, its nearest parent obj holds. A
// key field the item leaves out matches, as in GetDeclared.
func (p Path) Steps(obj map[string]any) []any {
	var out []any
	var cur any = obj
	for _, pe := range p {
		i := -1
		switch {
		case pe.FieldName != nil:
			m, _ := cur.(map[string]any)
			v, ok := m[*pe.FieldName]
			if !ok {
				return out
			}
			out, cur = append(out, *pe.FieldName), v
			continue
		case pe.Index != nil:
			if l, _ := cur.([]any); *pe.Index < len(l) {
				i = *pe.Index
			}
		case pe.Key != nil:
			if i = indexByKey(cur, *pe.Key, false); i < 0 {
				i = indexByKey(cur, *pe.Key, true)
			}
		case pe.Value != nil:
			i = indexOfValue(cur, *pe.Value)
		}
		if i < 0 {
			return out
		}
		out, cur = append(out, i), cur.([]any)[i]
	}
	return out
}

// Remove deletes the value at p (by index) from obj: a map entry, or a list item.
func (p Path) Remove(obj map[string]any) {
	if len(p) == 0 {
		return
	}
	parent, ok := any(obj), true
	if len(p) > 1 {
		parent, ok = p[:len(p)-1].Get(obj)
	}
	if !ok {
		return
	}
	last := p[len(p)-1]
	switch t := parent.(type) {
	case map[string]any:
		if last.FieldName != nil {
			delete(t, *last.FieldName)
		}
	case []any:
		if last.Index != nil && *last.Index < len(t) {
			p[:len(p)-1].Set(obj, slices.Delete(slices.Clone(t), *last.Index, *last.Index+1))
		}
	}
}

// Set replaces the value at an existing path; it reports whether the path was found.
func (p Path) Set(obj map[string]any, v any) bool {
	if len(p) == 0 {
		return false
	}
	parent, ok := p[:len(p)-1].Get(obj)
	if !ok {
		return false
	}
	last := p[len(p)-1]
	switch node := parent.(type) {
	case map[string]any:
		if last.FieldName == nil {
			return false
		}
		if _, ok := node[*last.FieldName]; !ok {
			return false
		}
		node[*last.FieldName] = v
		return true
	case []any:
		for i, item := range node {
			if (last.Index != nil && *last.Index == i) || (last.Key != nil && matchesKey(item, *last.Key)) {
				node[i] = v
				return true
			}
		}
	}
	return false
}

func matchesKey(item any, key value.FieldList) bool {
	_, ok := findByKey([]any{item}, key, false)
	return ok
}

// FromFields builds a path of map keys.
func FromFields(fields []string) Path {
	p := make(Path, len(fields))
	for i := range fields {
		p[i] = fieldpath.PathElement{FieldName: &fields[i]}
	}
	return p
}

// isPlainKey reports a key of [A-Za-z0-9_-]+, written bare in paths; no regexp (performance: Path.String runs
// for every delta, several times; the regexp was most of its cost).
func isPlainKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
