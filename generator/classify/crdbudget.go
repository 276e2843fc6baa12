package classify

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// Budget for structural-schema defaulting: the defaulted object may hold 16 values per value of
// the object, plus about a million. A default is copied into every object that lacks the field,
// so one default of 10,000 keys on the items of a 4,000-item list made 40 million values from a
// 156 KB input and took 3.8 GB; a million values take about 150 MB.
const (
	defaultedPerValue = 16
	defaultedExtra    = 1 << 20
)

// valueCounter counts the values (map entries, list items, scalars) an object holds once
// structuraldefaulting.Default has applied a schema's defaults, including the defaults inside
// the copies it inserts, without making them. It stops counting past limit, so its cost is
// bounded by the budget rather than by what the defaults would make.
type valueCounter struct{ n, limit int }

func (c *valueCounter) add(x any, s *structuralschema.Structural) {
	if c.n > c.limit {
		return
	}
	c.n++
	switch x := x.(type) {
	case map[string]any:
		if s == nil {
			for _, v := range x {
				c.add(v, nil)
			}
			return
		}
		for k, prop := range s.Properties {
			if v, found := x[k]; prop.Default.Object != nil && (!found || nonNullableNull(v, &prop)) {
				c.add(prop.Default.Object, &prop) // a copy of the default, defaulted in turn
			}
		}
		for k, v := range x {
			if prop, found := s.Properties[k]; found {
				if prop.Default.Object == nil || !nonNullableNull(v, &prop) { // else replaced above
					c.add(v, &prop)
				}
			} else if s.AdditionalProperties != nil {
				c.element(v, s.AdditionalProperties.Structural)
			} else {
				c.add(v, nil)
			}
		}
	case []any:
		var items *structuralschema.Structural
		if s != nil {
			items = s.Items
		}
		for _, v := range x {
			c.element(v, items)
		}
	}
}

// element counts a list item or an additional property: a null where null is not allowed
// becomes a copy of the default.
func (c *valueCounter) element(v any, s *structuralschema.Structural) {
	if nonNullableNull(v, s) {
		v = s.Default.Object
	}
	c.add(v, s)
}

// nonNullableNull is structuraldefaulting's isNonNullableNull (not exported).
func nonNullableNull(x any, s *structuralschema.Structural) bool {
	return x == nil && s != nil && !s.Generic.Nullable
}

// withinDefaultingBudget reports whether defaulting obj with s stays within the budget, and the
// budget.
func withinDefaultingBudget(obj map[string]any, s *structuralschema.Structural) (bool, int) {
	in := valueCounter{limit: int(^uint(0) >> 1)}
	in.add(obj, nil)
	limit := defaultedPerValue*in.n + defaultedExtra
	out := valueCounter{limit: limit}
	out.add(obj, s)
	return out.n <= limit, limit
}
