package fielddiff

import (
	"fmt"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// TestOrderedWalk (issue 12 item 5): maps are walked in key order, so structured-merge-diff's
// sorted field sets are built by appending (linear in a map's size, was quadratic), and the
// comparison finds exactly what the unordered walk finds.
func TestOrderedWalk(t *testing.T) {
	data, other := map[string]any{}, map[string]any{}
	for i := range 2000 {
		data[fmt.Sprint("k", i)] = "v"
		other[fmt.Sprint("k", i)] = "v"
		if i%3 > 0 {
			other[fmt.Sprint("k", i)] = "w"
		}
	}
	obj := func(d map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "a", "namespace": "ns"}, "data": d}}
	}
	td, tl, _, err := toTyped(obj(data), obj(other))
	if err != nil {
		t.Fatal(err)
	}
	od := ordered(td)
	var keys []string
	m, _ := od.AsValue().AsMap().Get("data")
	m.AsMap().Iterate(func(k string, _ value.Value) bool { keys = append(keys, k); return true })
	if len(keys) != 2000 || !sort.StringsAreSorted(keys) {
		t.Errorf("%d keys, sorted %v", len(keys), sort.StringsAreSorted(keys))
	}
	ol := ordered(tl)
	want, err := td.Compare(tl)
	if err != nil {
		t.Fatal(err)
	}
	got, err := od.Compare(ol)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Modified.Equals(want.Modified) || !got.Added.Equals(want.Added) || !got.Removed.Equals(want.Removed) || got.Modified.Size() != 1333 {
		t.Errorf("ordered comparison differs: %d modified, want %d", got.Modified.Size(), want.Modified.Size())
	}
	wantSet, _ := td.ToFieldSet()
	gotSet, _ := od.ToFieldSet()
	if !gotSet.Equals(wantSet) {
		t.Errorf("ordered field set differs")
	}
}

// Walked in key order, a map's scalar values are handed on as they are: only maps and lists need
// their walk ordered, and wrapping each scalar cost an allocation per value visited (a ConfigMap
// of 2,000 keys compared: two per key).
func TestOrderedWalkLeavesScalars(t *testing.T) {
	data, other := map[string]any{}, map[string]any{}
	for i := range 2000 {
		data[fmt.Sprint("k", i)] = "v"
		other[fmt.Sprint("k", i)] = "w"
	}
	obj := func(d map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "a", "namespace": "ns"}, "data": d}}
	}
	td, tl, _, err := toTyped(obj(data), obj(other))
	if err != nil {
		t.Fatal(err)
	}
	od, ol := ordered(td), ordered(tl)
	m, _ := od.AsValue().AsMap().Get("data")
	m.AsMap().Iterate(func(k string, v value.Value) bool {
		if _, wrapped := v.(orderedValue); wrapped {
			t.Fatalf("data.%s: a scalar value wrapped", k)
		}
		return true
	})
	if _, wrapped := m.(orderedValue); !wrapped {
		t.Fatal("the data map is not walked in key order")
	}
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := od.Compare(ol); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 3000 { // about one per key, the modified field's set entry
		t.Errorf("comparing 2,000 modified scalar values took %.0f allocations", allocs)
	}
}
