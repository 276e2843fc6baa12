package capture

import (
	"context"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crdsOf gets the CustomResourceDefinition of every kind among the captured objects that has
// one (read-only: get on customresourcedefinitions), so their schema defaults are known offline.
// A CRD is named RESOURCE.GROUP; built-in and aggregated kinds have none (not found: skipped).
// CRDs the app itself ships are among its objects already.
func crdsOf(ctx context.Context, dyn dynamic.Interface, kinds []schema.GroupVersionResource, live []*unstructured.Unstructured) ([]*unstructured.Unstructured, []Failure) {
	have := map[string]bool{}
	for _, o := range live {
		if o.GroupVersionKind().GroupKind() == (schema.GroupKind{Group: crdResource.Group, Kind: "CustomResourceDefinition"}) {
			have[o.GetName()] = true
		}
	}
	names := map[string]bool{}
	for _, k := range kinds {
		if k.Group != "" && !have[k.Resource+"."+k.Group] {
			names[k.Resource+"."+k.Group] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var out []*unstructured.Unstructured
	var failures []Failure
	for _, name := range sorted {
		crd, err := dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue // a built-in or aggregated kind
		case err != nil:
			failures = append(failures, Failure{Resource: "CustomResourceDefinition " + name, Err: err})
			continue
		}
		out = append(out, crd)
	}
	return out, failures
}
