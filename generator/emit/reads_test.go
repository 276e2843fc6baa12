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
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// kapp's engine evaluates a rule on the same resource under its two bases, with the live object
// as read (kapp's history annotations in it) and without them: the memo answers the second from
// the first for a program written here, which reads the live object's spec only, and still runs
// ytt when what the program reads differs, or for a program it did not write. Each answer is
// kapp's own (yttresmod, no memo) on the same inputs.
func TestMemoKeysAGeneratedRuleOnWhatItReads(t *testing.T) {
	key := value.FieldList{{Name: "port", Value: value.NewValueInterface(int64(80))}}
	nodePort := fielddiff.Path{fieldpath.PathElement{FieldName: ptr("spec")}, fieldpath.PathElement{FieldName: ptr("ports")},
		fieldpath.PathElement{Key: &key}, fieldpath.PathElement{FieldName: ptr("nodePort")}}
	prog := overlay(synth.Rule{Sources: synth.UserWins(), Keyed: []fielddiff.Path{nodePort}})
	if reads, ok := OverlayReads(prog); !ok || !reflect.DeepEqual(reads, map[string][]string{"new": {"spec"}, "existing": {"spec"}}) {
		t.Fatalf("reads of the program: %v %v, want new and existing spec", reads, ok)
	}
	if reads, ok := OverlayReads(overlay(synth.Rule{Sources: synth.UserWins(), FoldStringData: true})); !ok || !reflect.DeepEqual(reads, map[string][]string{"existing": {"data"}}) {
		t.Errorf("reads of a stringData fold: %v %v, want existing data", reads, ok)
	}
	service := func(port int64, annotations map[string]any) ctlres.Resource {
		item := map[string]any{"port": int64(80)}
		if port > 0 {
			item["nodePort"] = port
		}
		meta := map[string]any{"name": "web", "namespace": "app"}
		if annotations != nil {
			meta["annotations"] = annotations
		}
		return ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": meta, "spec": map[string]any{"type": "NodePort", "ports": []any{item}}}}, ctlres.ResourceType{})
	}
	desired := service(0, nil)
	live := service(30080, nil)
	history := service(30080, map[string]any{"kapp.k14s.io/original": `{"kind":"Service"}`, "kapp.k14s.io/original-diff-md5": "58e0494c51d30eb3494f7c9198986bb9"})
	moved := service(30081, nil)
	hand := "#! written by hand\n" + prog
	if _, ok := OverlayReads(hand); ok {
		t.Fatal("a program emit did not write is read as its own")
	}

	kappglobal.ResetYTTMemo()
	for _, tc := range []struct {
		name, program string
		existing      ctlres.Resource
		hits, misses  int64 // the memo's counts after this evaluation
	}{
		{"live object", prog, live, 0, 1},
		{"with kapp's history annotations", prog, history, 1, 1},
		{"another node port", prog, moved, 1, 2},
		{"by hand, live object", hand, live, 1, 3},
		{"by hand, with kapp's history annotations", hand, history, 1, 4},
	} {
		srcs := map[ctlres.FieldCopyModSource]ctlres.Resource{ctlres.FieldCopyModSourceNew: desired, ctlres.FieldCopyModSourceExisting: tc.existing}
		got, want := desired.DeepCopy(), desired.DeepCopy()
		if err := kappglobal.SerialYTT(yttresmod.OverlayContractV1Mod{ResourceMatcher: ctlres.AllMatcher{}, OverlayYAML: tc.program}).ApplyFromMultiple(got, srcs); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := (yttresmod.OverlayContractV1Mod{ResourceMatcher: ctlres.AllMatcher{}, OverlayYAML: tc.program}).ApplyFromMultiple(want, srcs); err != nil {
			t.Fatalf("%s: kapp: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got.UnstructuredObject(), want.UnstructuredObject()) {
			t.Errorf("%s: rebased %v, kapp rebases %v", tc.name, got.UnstructuredObject(), want.UnstructuredObject())
		}
		if hits, misses := kappglobal.YTTMemoStats(); hits != tc.hits || misses != tc.misses {
			t.Errorf("%s: memo %d hits, %d evaluations; want %d, %d", tc.name, hits, misses, tc.hits, tc.misses)
		}
	}
}
