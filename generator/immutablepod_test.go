package generator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Changes made in Git the API server refuses on update, which rulesets/immutable.yaml lacked
// (probe13 P13-7): check called them "kapp applies it on deploy" and passed, and kapp's in-place
// update is refused. The expectations are the API server's (k8s.io/kubernetes v1.37.2
// pkg/apis/core/validation ValidatePodUpdate, ValidatePersistentVolumeUpdate; apiextensions
// validateCustomResourceDefinitionSpecUpdate), written out here, not read from the rulesets.
func TestServerRefusedUpdatesFailCheck(t *testing.T) {
	set := func(v any, path ...string) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			if err := unstructured.SetNestedField(u.Object, v, path...); err != nil {
				t.Fatal(err)
			}
		}
	}
	container := func(field string, v any) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "containers")
			cs[0].(map[string]any)[field] = v
			_ = unstructured.SetNestedSlice(u.Object, cs, "spec", "containers")
		}
	}
	for _, c := range []struct {
		name, fixture, kind, object, path string
		edit                              func(*unstructured.Unstructured)
		want                              verdict.Kind
	}{
		{"pod command", "admission-pod", "Pod", "toolbox", "spec.containers[name=shell].command[1]", container("command", []any{"sleep", "60"}), verdict.KindImmutable},
		{"pod image", "admission-pod", "Pod", "toolbox", "spec.containers[name=shell].image", container("image", "busybox:1.37"), verdict.KindPending},
		{"pod activeDeadlineSeconds set", "admission-pod", "Pod", "toolbox", "spec.activeDeadlineSeconds", set(int64(600), "spec", "activeDeadlineSeconds"), verdict.KindPending},
		{"pv hostPath", "pv-binder", "PersistentVolume", "pv-binder-static", "spec.hostPath.path", set("/tmp/elsewhere", "spec", "hostPath", "path"), verdict.KindImmutable},
		{"crd scope", "crd-defaults", "CustomResourceDefinition", "backups.crd-defaults.rebasegen.dev", "spec.scope", set("Cluster", "spec", "scope"), verdict.KindImmutable},
		{"crd kind", "crd-defaults", "CustomResourceDefinition", "backups.crd-defaults.rebasegen.dev", "spec.names.kind", set("Backup2", "spec", "names", "kind"), verdict.KindImmutable},
	} {
		t.Run(c.name, func(t *testing.T) {
			kind, fails := kindAt(t, checked(t, fixtureEdited(t, c.fixture, c.kind, c.edit)), c.object, c.path)
			if kind != c.want || fails != (c.want == verdict.KindImmutable) {
				t.Errorf("check's finding at %s: %q (fails %v), want %q", c.path, kind, fails, c.want)
			}
		})
	}
}
