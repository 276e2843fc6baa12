package argocd_test

import (
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/argocd"
)

// An ignore of a container's resources hides a change made in Git to each quantity it declares,
// on every run: the values drawn are quantities (the API server refuses any other, and Argo CD
// then compares the whole object as written, showing the other quantities' forms as a change
// whatever the ignore hides). Before, limits.cpu (1000m drawn as 4821q), the memories and
// requests.ephemeral-storage were hidden or not by the draw, requests.cpu (0.5 -> 0.7) always.
// Oracle: Argo CD's StateDiff of the manifest with each quantity set by hand to another amount,
// in sync under the ignore and OutOfSync without it.
func TestQuantityVerdictDoesNotDependOnTheDraw(t *testing.T) {
	a := analyze(t, filepath.Join("argocd", "argo-quantities-ssa"))
	s := settingsOf(t, `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: argo-quantities-ssa, namespace: argocd}
spec:
  ignoreDifferences:
  - {group: apps, kind: Deployment, jsonPointers: [/spec/template/spec/containers/0/resources]}
`)
	r := a.Report.Resources[0]
	desired, live, err := r.Objects()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range []struct {
		field []string
		value string
	}{
		{[]string{"limits", "cpu"}, "3"},
		{[]string{"limits", "memory"}, "3Gi"},
		{[]string{"requests", "cpu"}, "300m"},
		{[]string{"requests", "ephemeral-storage"}, "3G"},
		{[]string{"requests", "memory"}, "3Gi"},
	} {
		changed := desired.DeepCopy()
		containers, _, _ := unstructured.NestedSlice(changed.Object, "spec", "template", "spec", "containers")
		if err := unstructured.SetNestedField(containers[0].(map[string]any), c.value, append([]string{"resources"}, c.field...)...); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedSlice(changed.Object, containers, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
		under, err := argocd.Diff(changed, live.Unstructured, s)
		if err != nil {
			t.Fatal(err)
		}
		without, err := argocd.Diff(changed, live.Unstructured, s.Plain())
		if err != nil {
			t.Fatal(err)
		}
		if under.Modified || !without.Modified {
			t.Fatalf("%v set to %s: OutOfSync %v under the ignore, %v without: the oracle does not hold", c.field, c.value, under.Modified, without.Modified)
		}
		want = append(want, "spec.template.spec.containers[name=worker].resources."+c.field[0]+"."+c.field[1])
	}
	res, err := argocd.Synthesize(a.Report, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		v, err := argocd.Verify(a.Report, s, res.Ghost)
		if err != nil {
			t.Fatal(err)
		}
		hidden := hiddenPaths(v)
		if !slices.Equal(hidden, want) || len(v.Masked) != 0 {
			t.Fatalf("run %d: hidden %v, masked %v; want hidden %v", i, hidden, v.Masked, want)
		}
	}
}
