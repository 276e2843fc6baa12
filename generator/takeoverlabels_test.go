package generator_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// kapp's own labels, which its first deploy of an object it takes over writes (its app and
// association labels, in the object's labels and wherever its ownership and label scoping rules
// write them), are adoption changes in explain, check and generate alike (newcomer walkthrough
// 10, N10-4). A Service first applied by `kubectl apply --server-side` (manager kubectl,
// operation Apply: no other tool's bookkeeping, no kapp label, no kapp.k14s.io/original) had
// nothing listed, so check and generate took kapp's update for a residual ghost diff (generate:
// verification failed, exit 3) while explain showed nothing. The oracle is kapp's own deploy
// diff against the live objects: the kapp label keys the object kapp applies holds and the live
// one lacks.
func TestKappLabelsOnTakeoverAreAdoption(t *testing.T) {
	ssa := fixture("adoption-view")
	ssa.Desired = []string{editedFixture(t, ssa.Desired[0], func(u *unstructured.Unstructured) bool { return u.GetKind() == "Service" })}
	ssa.Live = []string{editedFixture(t, ssa.Live[0], func(u *unstructured.Unstructured) bool {
		if u.GetKind() != "Service" {
			return false
		}
		// as `kubectl apply --server-side` leaves it: the manifest's fields, owned by kubectl
		u.SetLabels(nil)
		u.SetAnnotations(nil)
		mf := u.GetManagedFields()
		mf[0].Manager = "kubectl"
		fields := strings.Replace(string(mf[0].FieldsV1.Raw), `"f:metadata":{"f:annotations":{"f:meta.helm.sh/release-name":{},"f:meta.helm.sh/release-namespace":{}},"f:labels":{"f:app.kubernetes.io/managed-by":{}}},`, "", 1)
		if fields == string(mf[0].FieldsV1.Raw) {
			t.Fatalf("adoption-view's Service: no Helm metadata in managedFields %s", fields)
		}
		mf[0].FieldsV1.Raw = []byte(fields)
		u.SetManagedFields(mf)
		return true
	})}
	for name, in := range map[string]generator.Inputs{"server-side applied": ssa, "adoption-view": fixture("adoption-view")} {
		t.Run(name, func(t *testing.T) {
			want := kappLabelsAdded(t, in)
			if len(want) == 0 {
				t.Fatal("kapp's deploy adds none of its labels: the case tests nothing")
			}
			rep, _, err := generator.Explain(in)
			if err != nil {
				t.Fatal(err)
			}
			var explained []string
			for _, r := range rep.Resources {
				for _, f := range r.Findings {
					if f.Class == classify.Adoption && strings.Contains(f.Path.String(), kappconv.Prefix) {
						explained = append(explained, r.ID.Kind+" "+f.Path.String())
					}
				}
			}
			slices.Sort(explained)
			if !slices.Equal(explained, want) {
				t.Errorf("explain's adoption changes of kapp's labels %v, want kapp's %v", explained, want)
			}
			rules, _ := generatedRules(t, in) // fails the test when generate's verification fails
			c, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			var checked []string
			for _, f := range c.Findings(verdict.Gate{}) {
				switch {
				case f.Kind == verdict.KindResidual:
					t.Errorf("check: residual %s %s: %s", f.Resource, f.Path, f.Evidence)
				case f.Kind == verdict.KindAdoption && strings.Contains(f.Path, kappconv.Prefix):
					checked = append(checked, f.Resource.Kind+" "+f.Path)
				}
			}
			slices.Sort(checked)
			if !slices.Equal(checked, want) {
				t.Errorf("check's adoption changes of kapp's labels %v, want kapp's %v", checked, want)
			}
		})
	}
}

// kappLabelsAdded are the kapp app and association label keys the objects kapp's deploy of in
// applies hold where the live objects lack them (kapp's change set against the live objects),
// each as "Kind path", the path as rebasegen prints one: map keys dotted, a key holding a "/" or
// "." quoted in brackets.
func kappLabelsAdded(t *testing.T, in generator.Inputs) []string {
	t.Helper()
	var out []string
	for _, ch := range kapptest.Changes(t, in.Desired, in.Live[0], in.Namespace, nil, false) {
		if ch.Op() != ctldiff.ChangeOpUpdate {
			continue
		}
		kind := ch.NewResource().Kind()
		var walk func(applied, live map[string]any, at string)
		walk = func(applied, live map[string]any, at string) {
			for _, k := range slices.Sorted(maps.Keys(applied)) {
				l, _ := live[k].(map[string]any)
				switch v := applied[k].(type) {
				case map[string]any:
					walk(v, l, strings.TrimPrefix(at+"."+k, "."))
				case string:
					if _, has := live[k]; !has && (k == kappconv.AppLabel || k == kappconv.AssociationLabel) {
						out = append(out, kind+" "+at+`["`+k+`"]`)
					}
				}
			}
		}
		walk(ch.NewResource().UnstructuredObject(), ch.ExistingResource().UnstructuredObject(), "")
	}
	slices.Sort(out)
	return out
}
