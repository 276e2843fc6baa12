package fielddiff

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// ByKey rewrites the list indexes of p, a path into u's object by index (as kapp's paths and
// the mutation check address items), into the elements explain names those items by: the merge
// keys of an associative list's items (ports[containerPort=80,protocol=TCP]), a set's values.
// Items of atomic lists, of kinds with no built-in schema (custom resources) and indexes u does
// not hold keep their index, as explain shows them.
func ByKey(u *unstructured.Unstructured, p Path) Path {
	shell, err := builtin().ObjectToTyped(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": u.GetAPIVersion(), "kind": u.GetKind()}}, typed.AllowDuplicates)
	if err != nil {
		return p
	}
	s, tr := shell.Schema(), shell.TypeRef()
	out := make(Path, 0, len(p))
	var cur any = u.Object
	for i, pe := range p {
		atom, ok := s.Resolve(tr)
		if !ok {
			return append(out, p[i:]...)
		}
		switch {
		case pe.FieldName != nil && atom.Map != nil:
			m, _ := cur.(map[string]any)
			cur = m[*pe.FieldName]
			tr = atom.Map.ElementType
			if f, ok := atom.Map.FindField(*pe.FieldName); ok {
				tr = f.Type
			}
		case pe.Index != nil && atom.List != nil:
			l, _ := cur.([]any)
			if *pe.Index < 0 || *pe.Index >= len(l) {
				return append(out, p[i:]...)
			}
			cur, tr = l[*pe.Index], atom.List.ElementType
			if atom.List.ElementRelationship == schema.Associative {
				pe = itemKey(s, atom.List, cur)
			}
		default:
			return append(out, p[i:]...)
		}
		out = append(out, pe)
	}
	return out
}

// Misaddressed checks how p, a path into an object of kind gvk, selects list items against the
// built-in schema of that kind: the comparison names the items of a keyed list by all their
// merge keys, a set's by value and an atomic list's by index, so a path selecting them otherwise
// matches no difference. It returns the first list p selects otherwise and how its items are
// named; nil when p selects every list it passes through as the comparison does, when a field of
// p is not in the schema, or when the kind has no built-in schema (a custom resource).
func Misaddressed(gvk k8sschema.GroupVersionKind, p Path) (list Path, want string) {
	shell := &unstructured.Unstructured{}
	shell.SetGroupVersionKind(gvk)
	tv, err := builtin().ObjectToTyped(shell, typed.AllowDuplicates)
	if err != nil {
		return nil, ""
	}
	s, tr := tv.Schema(), tv.TypeRef()
	for i, pe := range p {
		atom, ok := s.Resolve(tr)
		if !ok {
			return nil, ""
		}
		if pe.FieldName != nil {
			switch {
			case atom.Map != nil:
			case atom.List != nil:
				return p[:i], "a list: its items are selected in [ ], not by a field name"
			case atom.Scalar != nil:
				return p[:i], "a value, with no field below it"
			default:
				return nil, ""
			}
			tr = atom.Map.ElementType
			if f, ok := atom.Map.FindField(*pe.FieldName); ok {
				tr = f.Type
			}
			continue
		}
		switch {
		case atom.List != nil:
		case atom.Map != nil:
			return p[:i], "not a list: its keys are fields (.key or [\"key\"])"
		case atom.Scalar != nil:
			return p[:i], "a value, not a list"
		default:
			return nil, ""
		}
		l := atom.List
		switch {
		case l.ElementRelationship == schema.Associative && len(l.Keys) > 0:
			keys := slices.Clone(l.Keys)
			slices.Sort(keys)
			var named []string
			if pe.Key != nil {
				for _, f := range *pe.Key {
					named = append(named, f.Name)
				}
			}
			if !slices.Equal(named, keys) {
				return p[:i], "a keyed list: its items are selected by all their keys, [" + strings.Join(keys, "=…,") + "=…]"
			}
		case l.ElementRelationship == schema.Associative:
			if pe.Value == nil {
				return p[:i], "a set: its items are selected by value, [=…]"
			}
		default:
			if pe.Index == nil {
				return p[:i], "a list without keys: its items are selected by index, [0]"
			}
		}
		tr = l.ElementType
	}
	return nil, ""
}
