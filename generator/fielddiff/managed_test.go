package fielddiff

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// WithoutManagedFields drops metadata.managedFields from its result only: the object it is given
// keeps them, and an object without them is returned as it is.
func TestWithoutManagedFields(t *testing.T) {
	spec := map[string]any{"replicas": int64(2)}
	u := &unstructured.Unstructured{Object: map[string]any{
		"kind": "Deployment", "spec": spec,
		"metadata": map[string]any{"name": "web", "managedFields": []any{map[string]any{"manager": "kapp"}}},
	}}
	got := WithoutManagedFields(u)
	if _, ok := got.Object["metadata"].(map[string]any)["managedFields"]; ok {
		t.Fatalf("managedFields kept: %v", got.Object)
	}
	if got.GetName() != "web" || got.GetKind() != "Deployment" {
		t.Fatalf("other fields lost: %v", got.Object)
	}
	if _, ok := u.Object["metadata"].(map[string]any)["managedFields"]; !ok {
		t.Fatal("the given object lost its managedFields")
	}
	got.Object["spec"].(map[string]any)["replicas"] = int64(3) // values below metadata are shared
	if spec["replicas"] != int64(3) {
		t.Fatal("spec was copied")
	}
	without := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web"}}}
	if WithoutManagedFields(without) != without {
		t.Fatal("an object without managedFields was copied")
	}
	noMeta := &unstructured.Unstructured{Object: map[string]any{"kind": "X"}}
	if WithoutManagedFields(noMeta) != noMeta {
		t.Fatal("an object without metadata was copied")
	}
}
