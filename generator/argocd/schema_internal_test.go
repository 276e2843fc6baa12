package argocd

import (
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube/scheme"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The ObjectMeta a custom resource's metadata refers to is typed as gitops-engine's static
// schema types a built-in object's (the oracle: client-go's schema of ObjectMeta): the same
// fields, lists keyed and atomic alike, maps by key.
func TestObjectMetaAsStatic(t *testing.T) {
	p, err := builtinParser()
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]any{
		"name": "w", "namespace": "demo", "generateName": "w-", "uid": "u1", "resourceVersion": "3", "generation": int64(2),
		"creationTimestamp": "2026-01-01T00:00:00Z", "labels": map[string]any{"a": "1"}, "annotations": map[string]any{"b": "2"},
		"finalizers":      []any{"x", "y"},
		"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u2", "controller": true}},
		"managedFields": []any{map[string]any{"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{}}, "time": "2026-01-01T00:00:00Z"}},
	}
	static := scheme.StaticParser().Type(objectMetaName)
	want, err := static.FromUnstructured(meta)
	if err != nil {
		t.Fatal(err)
	}
	// the type of ConfigMap's metadata field in p is the definition's ObjectMeta
	cm := p.Type(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	if cm == nil {
		t.Fatal("no ConfigMap in the parser")
	}
	ours := *cm
	ours.TypeRef.NamedType = new(objectMetaName)
	got, err := ours.FromUnstructured(meta)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := want.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	gs, err := got.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	if !ws.Equals(gs) {
		t.Errorf("field sets differ:\nstatic: %s\nours:   %s", ws, gs)
	}
}
