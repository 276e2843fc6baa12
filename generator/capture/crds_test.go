package capture

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// TestCRDsOfCapturedKinds: the CRD of each captured custom resource kind is read (get by name,
// RESOURCE.GROUP); built-in kinds (no such CRD) are skipped, a CRD the app ships is not read
// again, and a CRD that cannot be read is a failure naming it.
func TestCRDsOfCapturedKinds(t *testing.T) {
	crd := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": name}}}
	}
	dyn := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), crd("externalsecrets.external-secrets.io"), crd("widgets.example.com"))
	kinds := []schema.GroupVersionResource{
		{Group: "apps", Version: "v1", Resource: "deployments"},
		{Version: "v1", Resource: "configmaps"},
		{Group: "external-secrets.io", Version: "v1", Resource: "externalsecrets"},
		{Group: "example.com", Version: "v1", Resource: "widgets"},
	}
	shipped := []*unstructured.Unstructured{crd("widgets.example.com")}
	got, failures := crdsOf(context.Background(), dyn, kinds, shipped)
	if len(failures) != 0 || len(got) != 1 || got[0].GetName() != "externalsecrets.external-secrets.io" {
		t.Fatalf("got %d CRDs (%v), failures %v; want only externalsecrets.external-secrets.io", len(got), got, failures)
	}
	dyn.PrependReactor("get", "customresourcedefinitions", func(a clienttesting.Action) (bool, runtime.Object, error) {
		name := a.(clienttesting.GetAction).GetName()
		return name == "externalsecrets.external-secrets.io", nil, apierrors.NewForbidden(crdResource.GroupResource(), name, nil)
	})
	got, failures = crdsOf(context.Background(), dyn, kinds, shipped)
	if len(got) != 0 || len(failures) != 1 || failures[0].Resource != "CustomResourceDefinition externalsecrets.external-secrets.io" {
		t.Fatalf("forbidden: got %v, failures %v", got, failures)
	}
}
