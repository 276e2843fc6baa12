package fielddiff

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// builtinType answers what converting an object of that apiVersion and kind alone answers (the
// oracle: the built-in converter itself), a kind it does not know included, and answers it
// again without converting anything.
func TestBuiltinTypeIsTheShellsType(t *testing.T) {
	for _, gvk := range [][2]string{{"apps/v1", "Deployment"}, {"v1", "Service"}, {"autoscaling/v2", "HorizontalPodAutoscaler"},
		{"example.com/v1", "Widget"}, {"v1", "NoSuchKind"}} {
		shell, wantErr := builtin().ObjectToTyped(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gvk[0], "kind": gvk[1]}}, typed.AllowDuplicates)
		for range 2 {
			got, err := builtinType(gvk[0], gvk[1])
			if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("%v: error %v, want %v", gvk, err, wantErr)
			}
			if err == nil && (got.schema != shell.Schema() || !reflect.DeepEqual(got.typeRef, shell.TypeRef())) {
				t.Errorf("%v: type %v, want %v", gvk, got.typeRef, shell.TypeRef())
			}
		}
		if allocs := testing.AllocsPerRun(10, func() { builtinType(gvk[0], gvk[1]) }); allocs > 1 {
			t.Errorf("%v: %.0f allocations to find a type known already", gvk, allocs)
		}
	}
}

// A Lookup allocates its list index only when it looks up a list item: a classification makes
// several Lookups per pair, most of which never do.
func TestLookupIndexesOnDemand(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{"replicas": int64(2)}}
	p := FromFields([]string{"spec", "replicas"})
	if allocs := testing.AllocsPerRun(20, func() {
		lookupSink = NewLookup(obj) // kept, as classification keeps its Lookups
		if v, ok := lookupSink.Get(p); !ok || v != int64(2) {
			t.Fatal(v, ok)
		}
	}); allocs > 1 {
		t.Errorf("a Lookup of one field took %.0f allocations", allocs)
	}
}

var lookupSink *Lookup
