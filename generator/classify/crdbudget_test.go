package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/crddoc"
)

// TestDefaultedValueCount: the budget's count of a defaulted object's values is the count of
// the object structuraldefaulting.Default makes, with defaults inside defaults, nulls replaced
// by defaults in lists, properties and additional properties.
func TestDefaultedValueCount(t *testing.T) {
	objs, err := load.ParseDocs("crd.yaml", []byte(crddoc.Namespaced("example.com", "Thing", `type: object
default: {}
properties:
  mode: {type: string, default: fast}
  outer:
    type: object
    default: {a: 1}
    properties:
      a: {type: integer}
      inner: {type: object, default: {x: [1, 2, 3]}, properties: {x: {type: array, items: {type: integer}}}}
  list:
    type: array
    items:
      type: object
      default: {name: d}
      properties:
        name: {type: string}
        port: {type: integer, default: 80}
  labels:
    type: object
    additionalProperties: {type: object, default: {v: w}, properties: {v: {type: string}, n: {type: integer, default: 1}}}
`)))
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := newCRDSchemas(objs)
	if err != nil {
		t.Fatal(err)
	}
	s := schemas.lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Thing"}).structural
	var count func(any) int // independent of valueCounter: the values of a plain object
	count = func(x any) int {
		n := 1
		switch x := x.(type) {
		case map[string]any:
			for _, v := range x {
				n += count(v)
			}
		case []any:
			for _, v := range x {
				n += count(v)
			}
		}
		return n
	}
	for _, obj := range []map[string]any{
		{"apiVersion": "example.com/v1", "kind": "Thing"},
		{"spec": map[string]any{"mode": nil, "list": []any{nil, map[string]any{"name": "a"}, map[string]any{"port": int64(1)}}}},
		{"spec": map[string]any{"outer": map[string]any{"inner": nil}, "labels": map[string]any{"a": nil, "b": map[string]any{}}}},
	} {
		c := valueCounter{limit: 1 << 30}
		c.add(obj, s)
		defaulted := runtime.DeepCopyJSON(obj)
		structuraldefaulting.Default(defaulted, s)
		if want := count(defaulted); c.n != want || c.n <= count(obj) {
			t.Errorf("%v: counted %d values, defaulting makes %d: %v", obj, c.n, want, defaulted)
		}
	}
	c := valueCounter{limit: 10}
	c.add(map[string]any{"spec": map[string]any{"list": make([]any, 1000)}}, s)
	if c.n != 11 {
		t.Errorf("counting went on past its limit: %d", c.n)
	}
}

// TestREADMEStatesDefaultingBudget: the README's "bad input" paragraph states the budget.
func TestREADMEStatesDefaultingBudget(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("a CRD's schema defaults make at most %d values per value of the object, plus %d", defaultedPerValue, defaultedExtra)
	if !strings.Contains(strings.Join(strings.Fields(string(data)), " "), want) {
		t.Errorf("README.md does not say %q", want)
	}
}
