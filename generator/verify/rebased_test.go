package verify

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// chainedRules rewrite the new resource differently under the two bases: the second rule matches
// only where the first copied kapp's history annotation from the existing object, which kapp
// rebases against as it listed it under the last-applied base and without its history under the
// live base; the exclusion removes a declared field before kapp rebases.
const chainedRules = `
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  path: [metadata, annotations]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]
- type: copy
  sources: [existing, new]
  path: [spec, template, spec, containers]
  resourceMatchers: [{hasAnnotationMatcher: {keys: [kapp.k14s.io/original]}}]
diffAgainstExistingFieldExclusionRules:
- path: [spec, revisionHistoryLimit]
  resourceMatchers: [{allMatcher: {}}]
`

// Rebased makes the new resource of a pair no other pair enters without the rest of kapp's
// change; it must be the new resource of kapp's whole change (ChangeSet.Calculate) under each
// base, and the two bases must differ here (else the test tells nothing about them).
func TestRebasedIsTheNewResourceOfKappsChange(t *testing.T) {
	desired := obj(t, deploymentYAML)
	mergeYAML(t, desired, `{spec: {revisionHistoryLimit: 3}}`)
	live := kappDeploy(t, desired)["web"]
	mergeYAML(t, live, deploymentLater)
	mergeYAML(t, live, `{spec: {template: {spec: {containers: [{image: "nginx:1.1"}]}}}}`)
	changed := desired.DeepCopy()
	mergeYAML(t, changed, `{spec: {template: {spec: {containers: [{image: "nginx:1.28"}]}}}}`)
	for _, tc := range []struct {
		name    string
		configs []*unstructured.Unstructured
	}{{"built-in rules", nil}, {"chained rules", []*unstructured.Unstructured{obj(t, replicasRule), obj(t, chainedRules)}}} {
		pairAt := func(int) (Pair, error) { return Pair{Desired: changed.DeepCopy(), Live: live.DeepCopy()}, nil }
		got := map[Base]map[string]any{}
		var mu sync.Mutex
		if err := Rebased(1, pairAt, tc.configs, func(_ int, b Base, obj map[string]any, err error) {
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			got[b] = (&unstructured.Unstructured{Object: obj}).DeepCopy().Object
		}); err != nil {
			t.Fatal(err)
		}
		want := map[Base]map[string]any{}
		if _, err := run(1, pairAt, tc.configs, nil, detail{}, func(in *inputs, w *worker, i int) error {
			for _, b := range Bases() {
				rs, err := in.resources(i)
				if err == nil {
					rs, err = in.prepared(i, rs)
				}
				if err != nil {
					return err
				}
				ch, err := in.change(w, i, rs, b, true)
				if err != nil {
					return err
				}
				want[b] = ch.NewResource().UnstructuredObject()
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, b := range Bases() {
			if got[b] == nil || !reflect.DeepEqual(got[b], want[b]) {
				t.Errorf("%s, %s base: Rebased\n%v\nkapp's change\n%v", tc.name, b, got[b], want[b])
			}
		}
		image := func(o map[string]any) string {
			cs, _, _ := unstructured.NestedSlice(o, "spec", "template", "spec", "containers")
			return fmt.Sprint(cs[0].(map[string]any)["image"])
		}
		if tc.configs != nil && (image(want[LastApplied]) != "nginx:1.1" || image(want[Live]) != "nginx:1.28") {
			t.Errorf("%s: kapp's images %s (last-applied), %s (live): want the live object's under the last-applied base only", tc.name, image(want[LastApplied]), image(want[Live]))
		}
	}
}

// A manifest kapp's deploy fails to prepare is kapp failing on it, under both bases, as where
// its change factory fails (probe12 P12-5's type draws: a CustomResourceDefinition's spec.group
// drawn as a map, which kapp reads as a string to place resources into namespaces): Rebased
// returned the error instead, and the mutation check aborted generate and check on it.
func TestRebasedGivesKappsPreparationErrorToEachBase(t *testing.T) {
	const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: caches.example.dev}
spec:
  group: example.dev
  names: {kind: Cache, plural: caches}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`
	live := obj(t, crd)
	changed := obj(t, crd)
	mergeYAML(t, changed, `{spec: {group: {a: b}}}`)
	var mu sync.Mutex
	failed := map[Base]string{}
	err := Rebased(1, func(int) (Pair, error) { return Pair{Desired: changed.DeepCopy(), Live: live.DeepCopy()}, nil }, nil,
		func(_ int, b Base, obj map[string]any, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil && obj == nil {
				failed[b] = err.Error()
			}
		})
	if err != nil {
		t.Fatalf("Rebased: %v; want each base to get kapp's error", err)
	}
	for _, b := range Bases() {
		if !strings.Contains(failed[b], "spec.group") {
			t.Errorf("%s base: error %q, want kapp's, naming spec.group", b, failed[b])
		}
	}
}
