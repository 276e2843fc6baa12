package classify

import (
	"strings"
	"testing"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/scheme"
)

// Issue 11 cause 3: defaulting and the storage round trip cover every kind kube-apiserver serves
// by default. The kinds come from the client libraries' schemes (k8s.io/api through client-go,
// apiextensions-apiserver's and kube-aggregator's clientsets), not from the schemes the defaulter
// uses, so a group the defaulter forgets to install fails here. Served by default: every GA
// version (kube-apiserver enables no alpha or beta version by default: k8s.io/kubernetes
// pkg/controlplane/instance.go DefaultAPIResourceConfigSource).
func TestStorageRoundTripCoversEveryServedKind(t *testing.T) {
	n := 0
	for _, s := range []*runtime.Scheme{clientscheme.Scheme, apiextensionsscheme.Scheme, aggregatorscheme.Scheme} {
		for gvk := range s.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal || strings.Contains(gvk.Version, "alpha") || strings.Contains(gvk.Version, "beta") || strings.HasSuffix(gvk.Kind, "List") {
				continue
			}
			obj, err := s.New(gvk)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := meta.Accessor(obj); err != nil {
				continue // not an object (options, status, events of a watch)
			}
			if gvk.Group == "meta.k8s.io" || gvk.Kind == "Status" || gvk.Kind == "WatchEvent" {
				continue
			}
			n++
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, "metadata": map[string]any{"name": "x"}}}
			var d defaulter
			res, ok, err := d.defaulted(u)
			if err != nil || !ok || res.stored.lookup() == nil {
				t.Errorf("%s: not covered by defaulting and the storage round trip (ok %v, stored %v, err %v)", gvk, ok, res.stored.lookup() != nil, err)
				continue
			}
			if !strings.Contains(res.mechanism, gvk.Kind) {
				t.Errorf("%s: mechanism %q does not name the kind", gvk, res.mechanism)
			}
		}
	}
	if n < 60 {
		t.Fatalf("only %d served kinds enumerated", n)
	}
	t.Logf("%d served kinds covered", n)
}
