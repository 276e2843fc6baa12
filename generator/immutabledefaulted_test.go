package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A pull request newly declaring an immutable field (rulesets/immutable.yaml) whose live value
// the server defaulted for kapp's last apply, on captured objects: a StorageClass's reclaimPolicy
// (ValidateStorageClassUpdate) and a StatefulSet's podManagementPolicy (ValidateStatefulSetUpdate)
// refuse the change whatever kapp's last apply held, so kapp's deploy fails on it; it passed as
// "kapp applies it on deploy" (newcomer7 N7-3).
func TestNewlyDeclaredImmutableFieldFailsTheGate(t *testing.T) {
	for _, c := range []struct {
		fixture, kind string
		path          []string
		value         string
	}{
		{"pv-binder", "StorageClass", []string{"reclaimPolicy"}, "Retain"},
		{"hpa-statefulset", "StatefulSet", []string{"spec", "podManagementPolicy"}, "Parallel"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			in := fixtureEdited(t, c.fixture, c.kind, func(u *unstructured.Unstructured) {
				if _, declared, _ := unstructured.NestedFieldNoCopy(u.Object, c.path...); declared {
					t.Fatalf("the fixture's manifest declares %s: the test needs it defaulted", strings.Join(c.path, "."))
				}
				if err := unstructured.SetNestedField(u.Object, c.value, c.path...); err != nil {
					t.Fatal(err)
				}
			})
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Path == strings.Join(c.path, ".") {
					found = true
					if f.Kind != verdict.KindImmutable || !f.Fails {
						t.Errorf("want %s failing the gate, got %s (fails %v): %s", verdict.KindImmutable, f.Kind, f.Fails, f.Evidence)
					}
				}
			}
			if !found {
				t.Errorf("no finding at %s", strings.Join(c.path, "."))
			}
		})
	}
}
