package fielddiff

import (
	"encoding/json"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// stripKapp removes kapp's keys wherever they are, names each by its path (through list items by
// index), drops a map they were all of unless keep holds its path, and leaves the object it was
// given as it was.
func TestStripKappPaths(t *testing.T) {
	const obj = `{"metadata":{"name":"a","labels":{"kapp.k14s.io/app":"1","x":"y"},"annotations":{"kapp.k14s.io/identity":"i"}},
	"spec":{"list":[{"n":1},{"m":{"kapp.k14s.io/a":1,"kapp.k14s.io/b":2,"k":3}},[{"kapp.k14s.io/c":true}]],"plain":{"q":1}}}`
	var m map[string]any
	if err := json.Unmarshal([]byte(obj), &m); err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(m)
	u, paths := stripKapp(&unstructured.Unstructured{Object: m}, nil)
	var got []string
	for _, p := range paths {
		got = append(got, p.String())
	}
	slices.Sort(got)
	want := []string{
		`metadata.annotations["kapp.k14s.io/identity"]`,
		`metadata.labels["kapp.k14s.io/app"]`,
		`spec.list[1].m["kapp.k14s.io/a"]`,
		`spec.list[1].m["kapp.k14s.io/b"]`,
		`spec.list[2][0]["kapp.k14s.io/c"]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	after, _ := json.Marshal(u.Object)
	const stripped = `{"metadata":{"labels":{"x":"y"},"name":"a"},"spec":{"list":[{"n":1},{"m":{"k":3}},[{}]],"plain":{"q":1}}}`
	if string(after) != stripped {
		t.Errorf("stripped\n%s\nwant\n%s", after, stripped)
	}
	if again, _ := json.Marshal(m); string(again) != string(before) {
		t.Errorf("the given object changed:\n%s\nwas\n%s", again, before)
	}
	// a map emptied by stripping stays where keep holds a value at its path, through list items
	keep := map[string]any{"metadata": map[string]any{"annotations": map[string]any{"a": "b"}},
		"spec": map[string]any{"list": []any{nil, map[string]any{"m": nil}}}}
	u, _ = stripKapp(&unstructured.Unstructured{Object: m}, keep)
	after, _ = json.Marshal(u.Object)
	const kept = `{"metadata":{"annotations":{},"labels":{"x":"y"},"name":"a"},"spec":{"list":[{"n":1},{"m":{"k":3}},[{}]],"plain":{"q":1}}}`
	if string(after) != kept {
		t.Errorf("stripped, keeping\n%s\nwant\n%s", after, kept)
	}
}

// A stripped key's path names its keys and indexes, whatever the walk's stack holds afterwards,
// and is made with two allocations (its elements and what they point to), not one per element.
func TestStrippedPathOwnsItsSteps(t *testing.T) {
	steps := []pathStep{{"spec", -1}, {"template", -1}, {"containers", -1}, {index: 2}, {"kapp.k14s.io/x", -1}}
	p := pathOf(steps)
	steps[0].key, steps[3].index = "changed", 9
	if got, want := p.String(), `spec.template.containers[2]["kapp.k14s.io/x"]`; got != want {
		t.Errorf("path %s, want %s", got, want)
	}
	if allocs := testing.AllocsPerRun(20, func() { pathSink = pathOf(steps) }); allocs > 2 {
		t.Errorf("a path of %d steps took %.0f allocations", len(steps), allocs)
	}
}

var pathSink Path
