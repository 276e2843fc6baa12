package fielddiff

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// deployment returns a Deployment whose containers are named by names, each with two ports,
// the first declared without its protocol (a merge key structured-merge-diff defaults to TCP).
func deployment(names []string, image string) *unstructured.Unstructured {
	var cs []any
	for _, n := range names {
		cs = append(cs, map[string]any{"name": n, "image": image, "ports": []any{
			map[string]any{"containerPort": int64(90)},
			map[string]any{"containerPort": int64(80), "protocol": "UDP"},
		}})
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "ns"},
		"spec":     map[string]any{"template": map[string]any{"spec": map[string]any{"containers": cs}}}}}
}

// TestKeyedListsReachSMDInKeyOrder (issue 12 item 5): structured-merge-diff collects an
// associative list's items in sorted slices, quadratic unless it walks them in key order, so
// the typed value holds containers sorted by name and ports by containerPort+protocol; the
// object itself is not reordered, and the comparison and field set are those of the unsorted
// object.
func TestKeyedListsReachSMDInKeyOrder(t *testing.T) {
	names := []string{"c3", "c10", "c1", "c2"}
	d := deployment(names, "x")
	before := d.DeepCopy()
	tv, err := builtinTyped(d)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Object, before.Object) {
		t.Error("builtinTyped changed the object it was given")
	}
	sorted := tv.AsValue().Unstructured().(map[string]any)
	cs, _, _ := unstructured.NestedSlice(sorted, "spec", "template", "spec", "containers")
	var got []string
	for _, c := range cs {
		c := c.(map[string]any)
		got = append(got, c["name"].(string))
		var ports []string
		for _, p := range c["ports"].([]any) {
			ports = append(ports, fmt.Sprint(p.(map[string]any)["containerPort"]))
		}
		if strings.Join(ports, ",") != "80,90" {
			t.Errorf("container %s: ports in order %v, want 80,90 (80/UDP before 90/TCP)", c["name"], ports)
		}
	}
	if want := slices.Sorted(slices.Values(names)); !slices.Equal(got, want) {
		t.Errorf("containers in order %v, want %v", got, want)
	}

	l := deployment([]string{"c2", "c1", "c10", "c4"}, "y")
	ordered, _, err := compare(d, l)
	if err != nil {
		t.Fatal(err)
	}
	ud, _ := builtin().ObjectToTyped(d)
	ul, _ := builtin().ObjectToTyped(l)
	unordered, err := ud.Compare(ul)
	if err != nil {
		t.Fatal(err)
	}
	if !ordered.Added.Equals(unordered.Added) || !ordered.Removed.Equals(unordered.Removed) || !ordered.Modified.Equals(unordered.Modified) ||
		ordered.Modified.Size() != 3 || ordered.Added.Size() == 0 || ordered.Removed.Size() == 0 {
		t.Errorf("comparison differs from the unsorted one:\n%s\nwant:\n%s", ordered, unordered)
	}
	fs, _ := tv.ToFieldSet()
	ufs, _ := ud.ToFieldSet()
	if !fs.Equals(ufs) {
		t.Errorf("field set differs from the unsorted one")
	}
}

// TestDiffWorkLinear (issue 12 item 5): the work of diffing a Deployment whose containers all
// differ grows linearly with their number. Work is counted in allocations, which do not depend
// on the machine's load: looking each differing container up by scanning the list allocated
// per item compared (16x the allocations for 4x the containers).
func TestDiffWorkLinear(t *testing.T) {
	allocs := func(n int) float64 {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprint("c", (i*7919)%n) // neither sorted nor reversed
		}
		d, l := deployment(names, "x"), deployment(names, "y")
		return testing.AllocsPerRun(1, func() {
			ds, err := Diff(d, l)
			if err != nil || len(ds) != n {
				t.Fatalf("%d deltas, %v", len(ds), err)
			}
		})
	}
	small, large := allocs(1000), allocs(4000)
	if ratio := large / small; ratio > 5 {
		t.Errorf("4x the containers cost %.1fx the allocations (%.0f vs %.0f): superlinear", ratio, large, small)
	}
}

// TestLookupFindsWhatPathGetFinds: Lookup's index gives the item the list scan gives, for merge
// keys present, defaulted (GetDeclared), numbers written as floats, duplicates and set values.
func TestLookupFindsWhatPathGetFinds(t *testing.T) {
	obj := map[string]any{
		"ports": []any{
			map[string]any{"port": int64(80), "protocol": "TCP", "n": 1},
			map[string]any{"port": int64(80), "n": 2},
			map[string]any{"port": 81.0, "n": 3},
			map[string]any{"port": int64(80), "protocol": "TCP", "n": 4}, // duplicate: the first wins
			map[string]any{"protocol": "UDP", "n": 5},
			"not a map",
		},
		"finalizers": []any{"a", "b", "a"},
	}
	// lists longer than scannedList, which Lookup finds items of through its index
	for i := range scannedList {
		obj["ports"] = append(obj["ports"].([]any), map[string]any{"port": int64(1000 + i), "protocol": "TCP", "n": 100 + i})
		obj["finalizers"] = append(obj["finalizers"].([]any), fmt.Sprint("f", i))
	}
	key := func(kv ...any) fieldpath.PathElement {
		var fl value.FieldList
		for i := 0; i < len(kv); i += 2 {
			fl = append(fl, value.Field{Name: kv[i].(string), Value: value.NewValueInterface(kv[i+1])})
		}
		return fieldpath.PathElement{Key: &fl}
	}
	field := func(s string) fieldpath.PathElement { return fieldpath.PathElement{FieldName: &s} }
	set := func(v any) fieldpath.PathElement {
		x := value.NewValueInterface(v)
		return fieldpath.PathElement{Value: &x}
	}
	paths := []Path{}
	for _, k := range []fieldpath.PathElement{
		key("port", int64(80), "protocol", "TCP"), key("port", int64(80), "protocol", "UDP"), key("port", int64(81), "protocol", "TCP"),
		key("port", 81.0, "protocol", "TCP"), key("port", int64(82), "protocol", "UDP"), key("port", int64(80)), key("protocol", "UDP"),
	} {
		paths = append(paths, Path{field("ports"), k}, Path{field("ports"), k, field("n")})
	}
	paths = append(paths, Path{field("finalizers"), set("a")}, Path{field("finalizers"), set("c")}, Path{field("ports"), set("not a map")})
	x := NewLookup(obj)
	for _, p := range paths {
		for _, get := range []struct {
			name      string
			want, got func(Path) (any, bool)
		}{{"Get", func(p Path) (any, bool) { return p.Get(obj) }, x.Get}, {"GetDeclared", func(p Path) (any, bool) { return p.GetDeclared(obj) }, x.GetDeclared}} {
			want, wok := get.want(p)
			got, gok := get.got(p)
			if wok != gok || !reflect.DeepEqual(want, got) {
				t.Errorf("%s %s: Lookup gives %v %v, Path %v %v", get.name, p, got, gok, want, wok)
			}
		}
	}
	if v, ok := x.GetDeclared(Path{field("ports"), key("port", int64(81), "protocol", "TCP"), field("n")}); !ok || v != 3 {
		t.Errorf("port 81.0 without protocol: %v %v, want 3 (the oracle must find it too)", v, ok)
	}
}

// TestLookupByIndex: ByIndex names the item Path.Get finds by its index, in a list Lookup
// indexes and in one it scans; a list item not found leaves the path as it is, and a field
// missing on the way keeps what follows it.
func TestLookupByIndex(t *testing.T) {
	field := func(s string) fieldpath.PathElement { return fieldpath.PathElement{FieldName: &s} }
	name := func(s string) fieldpath.PathElement {
		fl := value.FieldList{{Name: "name", Value: value.NewValueInterface(s)}}
		return fieldpath.PathElement{Key: &fl}
	}
	index := func(i int) fieldpath.PathElement { return fieldpath.PathElement{Index: &i} }
	for _, n := range []int{3, 3 * scannedList} {
		var env []any
		for i := range n {
			env = append(env, map[string]any{"name": fmt.Sprint("E", i), "value": fmt.Sprint("v", i)})
		}
		env = append(env, map[string]any{"name": "E1", "value": "duplicate"}) // the first wins, as Get finds it
		obj := map[string]any{"containers": []any{map[string]any{"name": "web", "env": env}}}
		x := NewLookup(obj)
		for _, tc := range []struct {
			p, want Path
		}{
			{Path{field("containers"), name("web"), field("env"), name("E1"), field("value")}, Path{field("containers"), index(0), field("env"), index(1), field("value")}},
			{Path{field("containers"), name("web"), field("env"), name(fmt.Sprint("E", n-1))}, Path{field("containers"), index(0), field("env"), index(n - 1)}},
			{Path{field("containers"), name("web"), field("env"), name("absent"), field("value")}, Path{field("containers"), name("web"), field("env"), name("absent"), field("value")}},
			{Path{field("containers"), name("web"), field("args"), name("E1")}, Path{field("containers"), index(0), field("args"), name("E1")}},
		} {
			got := x.ByIndex(tc.p)
			if got.String() != tc.want.String() {
				t.Errorf("%d items: ByIndex(%s) = %s, want %s", n, tc.p, got, tc.want)
			}
			if want, ok := tc.p.Get(obj); ok {
				if v, _ := got.Get(obj); !reflect.DeepEqual(v, want) {
					t.Errorf("%d items: %s holds %v, %s %v", n, got, v, tc.p, want)
				}
			}
		}
	}
}
