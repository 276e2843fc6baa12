package kapptest

import (
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// CRDefaulted is obj, a custom resource, as the API server defaults a request holding it with
// the schema crd (an apiextensions.k8s.io/v1 CustomResourceDefinition) has for obj's version:
// k8s.io/apiextensions-apiserver's structural defaulting, as its customresource handler
// decodes a create or an update (the handler prunes unknown fields first; the tests' objects
// hold none). obj is left as it is.
func CRDefaulted(t testing.TB, crd, obj map[string]any) map[string]any {
	t.Helper()
	var c apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(crd, &c); err != nil {
		t.Fatal(err)
	}
	version := (&unstructured.Unstructured{Object: obj}).GroupVersionKind().Version
	for _, v := range c.Spec.Versions {
		if v.Name != version || v.Schema == nil {
			continue
		}
		var internal apiextensionsinternal.CustomResourceValidation
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil); err != nil {
			t.Fatal(err)
		}
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			t.Fatal(err)
		}
		out := runtime.DeepCopyJSON(obj)
		structuraldefaulting.Default(out, s)
		return out
	}
	t.Fatalf("CRD %s has no schema for version %s", c.Name, version)
	return nil
}
