package fielddiff

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
