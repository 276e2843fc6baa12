package emit

import (
	"reflect"
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// A path through a set-list item (finalizers: a list of strings) selects the item by its value.
// The rule's data once held the value as YAML text ("\"kubernetes.io/pvc-protection\""), which
// no item equals, so the rule silently did nothing. The overlay runs here in kapp's own ytt rule.
func TestOverlaySelectsASetListItemByItsValue(t *testing.T) {
	item := value.NewValueInterface("kubernetes.io/pvc-protection")
	path := fielddiff.Path{fieldpath.PathElement{FieldName: ptr("metadata")}, fieldpath.PathElement{FieldName: ptr("finalizers")},
		fieldpath.PathElement{Value: &item}}
	rule := synth.Rule{Sources: []ctlres.FieldCopyModSource{"existing", "new"}, Keyed: []fielddiff.Path{path}}
	mod := yttresmod.OverlayContractV1Mod{ResourceMatcher: ctlres.AllMatcher{}, OverlayYAML: overlay(rule)}

	obj := func(finalizers ...any) ctlres.Resource {
		return ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": map[string]any{"name": "data", "namespace": "app", "finalizers": finalizers}}}, ctlres.ResourceType{})
	}
	desired, live := obj("example.com/keep"), obj("example.com/keep", "kubernetes.io/pvc-protection")
	res := desired.DeepCopy()
	err := mod.ApplyFromMultiple(res, map[ctlres.FieldCopyModSource]ctlres.Resource{
		ctlres.FieldCopyModSourceNew: desired, ctlres.FieldCopyModSourceExisting: live})
	if err != nil {
		t.Fatal(err)
	}
	got := res.UnstructuredObject()["metadata"].(map[string]any)["finalizers"]
	want := []any{"example.com/keep", "kubernetes.io/pvc-protection"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("finalizers after the rule: %v, want %v (the live item kept)", got, want)
	}
}

func ptr(s string) *string { return &s }
