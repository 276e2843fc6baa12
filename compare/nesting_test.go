package compare

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rebasegen/rebasegen/generator/load"
)

// thing is a custom resource whose spec is spec; its CRD is not given, so nothing bounds spec.
func thing(spec any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "w", "namespace": "d"}, "spec": spec}}
}

// chain is levels maps, each holding the next under "a", the last holding "x".
func chain(levels int) any {
	var v any = "x"
	for range levels {
		v = map[string]any{"a": v}
	}
	return v
}

// TestNestingBounded (probe20 P20-4): the library refuses what the command line refuses, objects
// nested deeper than 512 levels (a document's root and spec are two of them; deeper ones took
// seconds of every Compare), with the command line's words, and a map or list holding itself,
// naming the field (it grew memory without end); a value holding itself through a typed
// object's pointers too. An object as deep as allowed still compares.
func TestNestingBounded(t *testing.T) {
	// the old code recursed without end on a cycle: fail on the stack's bound, not the machine's memory
	defer debug.SetMaxStack(debug.SetMaxStack(256 << 20))
	c, err := New(WithUpdate())
	if err != nil {
		t.Fatal(err)
	}
	self := map[string]any{"b": "x"}
	self["self"] = self
	list := []any{"x", nil}
	list[1] = list
	inList := map[string]any{}
	inList["items"] = []any{map[string]any{"back": inList}}
	deep := func(n int) runtime.Object { return thing(chain(n)) }
	for _, tc := range []struct {
		name          string
		desired, live runtime.Object
		want          string // "" when it compares
	}{
		{"deepest allowed", deep(511), deep(511), ""},
		{"one level deeper", deep(512), deep(511), "compare: desired: nested deeper than 512 levels"},
		{"3000 levels live", deep(10), deep(3000), "compare: live: nested deeper than 512 levels"},
		{"map holding itself", thing(self), thing(map[string]any{}),
			"compare: desired: field spec.self is the same map as spec: a value holding itself has no JSON form"},
		{"list holding itself", thing(map[string]any{}), thing(map[string]any{"l": list}),
			"compare: live: field spec.l[1] is the same list as spec.l: a value holding itself has no JSON form"},
		{"map in a list holding it", thing(inList), thing(inList),
			"compare: desired: field spec.items[0].back is the same map as spec: a value holding itself has no JSON form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c.Compare(tc.desired, tc.live)
			switch {
			case tc.want == "" && err != nil:
				t.Error(err)
			case tc.want == "" && r.Verdict != NoChange:
				t.Errorf("%s %v, want NoChange", r.Verdict, r.Fields)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}

	props := &apiextensionsv1.JSONSchemaProps{Type: "object"}
	props.Not = props
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1", Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}}}},
	}
	if _, err := New(WithUpdate(), WithCRDs(crd)); err == nil || !strings.HasPrefix(err.Error(), "compare: WithCRDs: CRD 1: ") {
		t.Errorf("a CRD whose schema holds itself: error %v", err)
	}
	if section := strings.Join(strings.Fields(readmeSection(t)), " "); !strings.Contains(section,
		fmt.Sprintf("limit of %d levels of nesting (an error, `nested deeper than %[1]d levels`), and a map, list or pointer holding itself", load.MaxDepth)) {
		t.Error("README's library section does not state the nesting limit and that a value holding itself is an error")
	}
	if _, err := New(WithUpdate(), WithCRDs(thing(self))); err == nil ||
		err.Error() != "compare: WithCRDs: CRD 1: field spec.self is the same map as spec: a value holding itself has no JSON form" {
		t.Errorf("a CRD holding itself: error %v", err)
	}
}
