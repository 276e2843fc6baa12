package fielddiff

import (
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// ordered returns tv with its maps walked in key order.
//
// Performance: structured-merge-diff's compare and ToFieldSet walk maps in Go's random order and
// insert each field into a sorted slice (fieldpath.PathElementSet.Insert), moving half of it per
// insert: quadratic in a map's size (explain of a ConfigMap of 100,000 keys took 35 s, of
// 1,000,000 keys over two minutes). Walked in key order, every insert appends.
//
// tv was validated when it was converted, and the same value walked in another order is just
// as valid: it is not validated again (performance: with Compared.Declared's reuse, validation
// fell from 1.3-1.5 s to 0.4 s of explain's 12 s of CPU, fleet of 10,000 pairs).
func ordered(tv *typed.TypedValue) *typed.TypedValue {
	//lint:ignore SA1019 deprecated only for values not yet validated; tv was (see above)
	return typed.AsTypedUnvalidated(orderedValue{tv.AsValue()}, tv.Schema(), tv.TypeRef())
}

// orderedValue is a value whose maps, at any depth, zip in key order.
type orderedValue struct{ value.Value }

// wrap returns v walked in key order. A scalar has no maps to order: it is returned as it is
// (performance: wrapping every scalar value the walks visit was an allocation each).
func wrap(v value.Value) value.Value {
	if v == nil {
		return nil
	}
	if o, ok := v.(orderedValue); ok {
		return o
	}
	if !v.IsMap() && !v.IsList() {
		return v
	}
	return orderedValue{v}
}

func unwrap(v value.Value) value.Value {
	if o, ok := v.(orderedValue); ok {
		return o.Value
	}
	return v
}

func (v orderedValue) AsMap() value.Map { return orderedMap{v.Value.AsMap()} }
func (v orderedValue) AsMapUsing(a value.Allocator) value.Map {
	return orderedMap{v.Value.AsMapUsing(a)}
}
func (v orderedValue) AsList() value.List { return orderedList{v.Value.AsList()} }
func (v orderedValue) AsListUsing(a value.Allocator) value.List {
	return orderedList{v.Value.AsListUsing(a)}
}

type orderedMap struct{ value.Map }

func unwrapMap(m value.Map) value.Map {
	if o, ok := m.(orderedMap); ok {
		return o.Map
	}
	return m
}

func (m orderedMap) Get(key string) (value.Value, bool) {
	v, ok := m.Map.Get(key)
	return wrap(v), ok
}

func (m orderedMap) GetUsing(a value.Allocator, key string) (value.Value, bool) {
	v, ok := m.Map.GetUsing(a, key)
	return wrap(v), ok
}

func (m orderedMap) Set(key string, v value.Value) { m.Map.Set(key, unwrap(v)) }

func (m orderedMap) Equals(other value.Map) bool { return m.Map.Equals(unwrapMap(other)) }

func (m orderedMap) EqualsUsing(a value.Allocator, other value.Map) bool {
	return m.Map.EqualsUsing(a, unwrapMap(other))
}

func (m orderedMap) Iterate(fn func(string, value.Value) bool) bool {
	return m.IterateUsing(value.HeapAllocator, fn)
}

func (m orderedMap) IterateUsing(a value.Allocator, fn func(string, value.Value) bool) bool {
	return m.Map.ZipUsing(a, nil, value.LexicalKeyOrder, func(k string, v, _ value.Value) bool { return fn(k, wrap(v)) })
}

func (m orderedMap) Zip(other value.Map, _ value.MapTraverseOrder, fn func(string, value.Value, value.Value) bool) bool {
	return m.ZipUsing(value.HeapAllocator, other, value.LexicalKeyOrder, fn)
}

func (m orderedMap) ZipUsing(a value.Allocator, other value.Map, _ value.MapTraverseOrder, fn func(string, value.Value, value.Value) bool) bool {
	var o value.Map
	if other != nil {
		o = unwrapMap(other)
	}
	return m.Map.ZipUsing(a, o, value.LexicalKeyOrder, func(k string, l, r value.Value) bool { return fn(k, wrap(l), wrap(r)) })
}

type orderedList struct{ value.List }

func (l orderedList) At(i int) value.Value { return wrap(l.List.At(i)) }

func (l orderedList) AtUsing(a value.Allocator, i int) value.Value { return wrap(l.List.AtUsing(a, i)) }

func (l orderedList) Equals(other value.List) bool { return l.List.Equals(unwrapList(other)) }

func (l orderedList) EqualsUsing(a value.Allocator, other value.List) bool {
	return l.List.EqualsUsing(a, unwrapList(other))
}

func (l orderedList) Range() value.ListRange { return orderedRange{l.List.Range()} }

func (l orderedList) RangeUsing(a value.Allocator) value.ListRange {
	return orderedRange{l.List.RangeUsing(a)}
}

func unwrapList(l value.List) value.List {
	if o, ok := l.(orderedList); ok {
		return o.List
	}
	return l
}

type orderedRange struct{ value.ListRange }

func (r orderedRange) Item() (int, value.Value) {
	i, v := r.ListRange.Item()
	return i, wrap(v)
}
