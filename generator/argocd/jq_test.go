package argocd

import (
	"testing"

	"github.com/itchyny/gojq"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// jqOf's expressions compile with Argo CD's jq (gojq) and delete exactly the field they name from
// an object holding it beside a sibling item and field, for keys jq's identifiers do not cover
// (annotation keys, a control character) and items selected by their merge keys.
func TestJQOf(t *testing.T) {
	key := "example.com/odd\x01key"
	field := func(s string) fieldpath.PathElement { return fieldpath.PathElement{FieldName: &s} }
	item := fieldpath.PathElement{Key: &value.FieldList{{Name: "name", Value: value.NewValueInterface("web")}, {Name: "port", Value: value.NewValueInterface(int64(80))}}}
	p := fielddiff.Path{field("spec"), field("items"), item, field(key)}
	obj := map[string]any{"spec": map[string]any{"items": []any{
		map[string]any{"name": "web", "port": 81, key: "keep"},
		map[string]any{"name": "web", "port": 80, key: "drop", "other": "keep"},
	}}}
	expr, ok := jqOf(p, obj)
	if !ok {
		t.Fatal("no expression")
	}
	q, err := gojq.Parse("del(" + expr + ")")
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := code.Run(obj).Next()
	if !ok {
		t.Fatal("no result")
	}
	if err, isErr := v.(error); isErr {
		t.Fatalf("%s: %v", expr, err)
	}
	items := v.(map[string]any)["spec"].(map[string]any)["items"].([]any)
	if _, kept := items[0].(map[string]any)[key]; !kept {
		t.Errorf("%s deleted the other item's field", expr)
	}
	second := items[1].(map[string]any)
	if _, kept := second[key]; kept || second["other"] != "keep" {
		t.Errorf("%s: %v, want only %q deleted", expr, second, key)
	}
}
