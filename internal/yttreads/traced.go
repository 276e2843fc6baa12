package yttreads

// The view of data.values the program reads through: ytt's own values, each value taken from
// them recorded.

import (
	"slices"

	"carvel.dev/ytt/pkg/template/core"
	"github.com/k14s/starlark-go/starlark"
	"github.com/k14s/starlark-go/syntax"
)

// tracer records the reads.
type tracer struct{ reads []Read }

func (t *tracer) read(src string, at []any, how How) {
	t.reads = append(t.reads, Read{Source: src, Path: slices.Clone(at), How: how})
}

// wrap is v, at path at of source src, as the program sees it: a map or a list traced, a scalar
// as it is, its content read.
func (t *tracer) wrap(src string, at []any, v starlark.Value) starlark.Value {
	switch v := v.(type) {
	case *core.StarlarkStruct:
		return &tracedMap{real: v, src: src, at: at, t: t}
	case *starlark.List:
		return &tracedList{real: v, src: src, at: at, t: t}
	}
	t.read(src, at, Content)
	return v
}

func child(at []any, k any) []any { return append(slices.Clone(at), k) }

// sources is data.values: its keys (the sources) traced from their own roots.
type sources struct {
	real   *core.StarlarkStruct
	traced starlark.StringDict
	t      *tracer
}

func (s *sources) String() string        { return s.real.String() }
func (s *sources) Type() string          { return s.real.Type() }
func (s *sources) Freeze()               {}
func (s *sources) Truth() starlark.Bool  { return s.real.Truth() }
func (s *sources) Hash() (uint32, error) { return s.real.Hash() }
func (s *sources) AttrNames() []string   { return s.real.AttrNames() }
func (s *sources) Attr(name string) (starlark.Value, error) {
	if v, ok := s.traced[name]; ok {
		return v, nil
	}
	return nil, nil
}
func (s *sources) Get(k starlark.Value) (starlark.Value, bool, error) {
	if name, ok := k.(starlark.String); ok {
		if v, ok := s.traced[string(name)]; ok {
			return v, true, nil
		}
	}
	return starlark.None, false, nil
}

// AsGoValue: the sources whole.
func (s *sources) AsGoValue() (any, error) {
	for name := range s.traced {
		s.t.read(name, nil, Whole)
	}
	return core.NewStarlarkValue(s.real).AsGoValue()
}

// tracedMap is a map of a source (ytt's struct), each value taken from it recorded.
type tracedMap struct {
	real *core.StarlarkStruct
	src  string
	at   []any
	t    *tracer
}

func (m *tracedMap) String() string        { return m.real.String() }
func (m *tracedMap) Type() string          { return m.real.Type() }
func (m *tracedMap) Freeze()               {}
func (m *tracedMap) Hash() (uint32, error) { return m.real.Hash() }
func (m *tracedMap) Truth() starlark.Bool {
	m.t.read(m.src, m.at, Keys)
	return m.real.Truth()
}
func (m *tracedMap) Len() int {
	m.t.read(m.src, m.at, Keys)
	return m.real.Len()
}
func (m *tracedMap) AttrNames() []string {
	m.t.read(m.src, m.at, Keys)
	return m.real.AttrNames()
}
func (m *tracedMap) Attr(name string) (starlark.Value, error) {
	v, err := m.real.Attr(name)
	if err != nil || v == nil {
		m.t.read(m.src, child(m.at, name), Absent)
		return v, err
	}
	return m.t.wrap(m.src, child(m.at, name), v), nil
}
func (m *tracedMap) Get(k starlark.Value) (starlark.Value, bool, error) {
	v, found, err := m.real.Get(k)
	name, isString := k.(starlark.String)
	switch {
	case err != nil || !isString:
		m.t.read(m.src, m.at, Keys)
		return v, found, err
	case !found:
		m.t.read(m.src, child(m.at, string(name)), Absent)
		return v, found, err
	}
	return m.t.wrap(m.src, child(m.at, string(name)), v), true, nil
}
func (m *tracedMap) Iterate() starlark.Iterator {
	m.t.read(m.src, m.at, Keys)
	return m.real.Iterate()
}
func (m *tracedMap) Items() []starlark.Tuple {
	m.t.read(m.src, m.at, Keys)
	items := m.real.Items()
	for i, kv := range items {
		if name, ok := kv[0].(starlark.String); ok {
			items[i] = starlark.Tuple{kv[0], m.t.wrap(m.src, child(m.at, string(name)), kv[1])}
		}
	}
	return items
}

// AsGoValue: the map converted whole (json.encode, a YAML node's value).
func (m *tracedMap) AsGoValue() (any, error) {
	m.t.read(m.src, m.at, Whole)
	return core.NewStarlarkValue(m.real).AsGoValue()
}

// CompareSameType: ytt's structs compare as the same struct or not.
func (m *tracedMap) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	if o, ok := y.(*tracedMap); ok {
		y = o.real
	}
	return starlark.CompareDepth(op, m.real, y, depth)
}

// tracedList is a list of a source, each item taken from it recorded.
type tracedList struct {
	real *starlark.List
	src  string
	at   []any
	t    *tracer
}

func (l *tracedList) String() string {
	l.t.read(l.src, l.at, Whole)
	return l.real.String()
}
func (l *tracedList) Type() string          { return l.real.Type() }
func (l *tracedList) Freeze()               {}
func (l *tracedList) Hash() (uint32, error) { return l.real.Hash() }
func (l *tracedList) Truth() starlark.Bool {
	l.t.read(l.src, l.at, Keys)
	return l.real.Truth()
}
func (l *tracedList) Len() int {
	l.t.read(l.src, l.at, Keys)
	return l.real.Len()
}
func (l *tracedList) Index(i int) starlark.Value {
	return l.t.wrap(l.src, child(l.at, i), l.real.Index(i))
}
func (l *tracedList) Iterate() starlark.Iterator {
	l.t.read(l.src, l.at, Keys)
	return &listIterator{l: l}
}

// Slice, Attr (a list's methods), Binary ('in', '+', '*'): the list whole.
func (l *tracedList) Slice(start, end, step int) starlark.Value {
	l.t.read(l.src, l.at, Whole)
	return l.real.Slice(start, end, step)
}
func (l *tracedList) AttrNames() []string { return l.real.AttrNames() }
func (l *tracedList) Attr(name string) (starlark.Value, error) {
	l.t.read(l.src, l.at, Whole)
	return l.real.Attr(name)
}
func (l *tracedList) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	l.t.read(l.src, l.at, Whole)
	if side == starlark.Left {
		return starlark.Binary(op, l.real, y)
	}
	return starlark.Binary(op, y, l.real)
}
func (l *tracedList) AsGoValue() (any, error) {
	l.t.read(l.src, l.at, Whole)
	return core.NewStarlarkValue(l.real).AsGoValue()
}
func (l *tracedList) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	l.t.read(l.src, l.at, Whole)
	if o, ok := y.(*tracedList); ok {
		o.t.read(o.src, o.at, Whole)
		y = o.real
	}
	return starlark.CompareDepth(op, l.real, y, depth)
}

type listIterator struct {
	l *tracedList
	i int
}

func (it *listIterator) Next(p *starlark.Value) bool {
	if it.i >= it.l.real.Len() {
		return false
	}
	*p = it.l.Index(it.i)
	it.i++
	return true
}
func (it *listIterator) Done() {}
