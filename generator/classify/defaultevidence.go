package classify

import "github.com/rebasegen/rebasegen/generator/fielddiff"

// The API server's defaulting, create strategy and storage as evidence for a live value the
// manifest does not declare, and the value tests they read.

// defaultEvidence says whether the API server's defaulting of the desired object explains the
// live value, and how.
func defaultEvidence(fc fieldContext, d fielddiff.Delta) (string, bool) {
	if fc.defaulted == nil {
		return "", false
	}
	dv, ok := fc.defaultedAt.Get(d.Path)
	if d.Change != fielddiff.Removed && d.Change != fielddiff.Canonical && ok && fielddiff.Equal(dv, d.Live) {
		return fc.mechanism, true
	}
	// what the create strategy prepared is read only when defaulting alone does not explain it
	var pv any
	prepared := false
	pa := fc.prepared.lookup()
	if pa != nil {
		pv, prepared = pa.Get(d.Path)
	}
	switch {
	case d.Change != fielddiff.Removed && d.Change != fielddiff.Canonical && prepared && fielddiff.Equal(pv, d.Live):
		return "set on create by " + fc.strategy, true
	case d.Change == fielddiff.Removed && pa != nil && ok && !prepared:
		// a declared field the strategy clears (a field of a feature gate that is off by default, a
		// secret reference's fields but its name)
		return "removed on create by " + fc.strategy, true
	case (d.Change == fielddiff.Removed || d.Change != fielddiff.Added && d.Live == nil && empty(d.Desired)) && (empty(d.Desired) || zeroValue(d.Desired)) &&
		fromManifest(fc, d) && fc.stored.lookup() != nil && !has(fc.stored.lookup(), d.Path):
		// a declared value the server does not store: an empty one (rules: [], annotations:
		// {}) or a zero value its Go type omits (a CRD's preserveUnknownFields: false). What
		// the server stores is of the manifest alone: a value kapp's Config put there (its
		// additional labels, its ownership label rules') is kapp's to apply, not the server's
		// to drop (outside probe 8, P8-1: a label added in Git was 'defaulted', and ruled away)
		if !empty(d.Desired) {
			return "a zero value the API server's Go type omits when it stores the object: " + fc.mechanism, true
		}
		return "an empty value the API server drops when it stores the object: " + fc.mechanism, true
	case d.Change == fielddiff.Modified && d.Desired == nil && empty(d.Live) && fc.stored.lookup() != nil && storedAs(fc.stored.lookup(), d.Path, d.Live):
		// a declared null the server decodes into its Go type's empty value and stores (a
		// Secret's data value: an empty []byte, written back as "")
		return "a null the API server stores as its type's empty value: " + fc.mechanism, true
	}
	return "", false
}

func empty(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	}
	return v == nil
}

// zeroValue reports whether v is the zero value of a scalar type (false, 0), which a Go type's
// omitempty leaves out when the server stores the object.
func zeroValue(v any) bool {
	switch t := v.(type) {
	case bool:
		return !t
	case int64:
		return t == 0
	case float64:
		return t == 0
	}
	return false
}

// fromManifest reports whether the manifest itself holds the desired value at d's path, rather
// than kapp's preparation of it (Config mods: additional labels, ownership and label scoping
// rules), which the server's defaulting and storage of the manifest say nothing about.
func fromManifest(fc fieldContext, d fielddiff.Delta) bool {
	v, ok := fc.manifestAt.Get(d.Path)
	return ok && fielddiff.Equal(v, d.Desired)
}

// storedAs reports whether the object holds v at p.
func storedAs(u *fielddiff.Lookup, p fielddiff.Path, v any) bool {
	sv, ok := u.Get(p)
	return ok && fielddiff.Equal(sv, v)
}

// has reports whether the object holds a value at p (a nil slice converts to null: none).
func has(u *fielddiff.Lookup, p fielddiff.Path) bool {
	v, ok := u.Get(p)
	return ok && v != nil
}

// emptyValue reports whether a declared value is the empty one of its kind ("", 0, null), which
// for a field the server calculates asks it to choose (a Service's clusterIP: "", a nodePort: 0).
func emptyValue(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case int64:
		return t == 0
	case float64:
		return t == 0
	}
	return false
}
