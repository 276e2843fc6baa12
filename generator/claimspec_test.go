package generator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Pull requests changing the spec of the captured PersistentVolumeClaims (pv-binder: static is
// Bound, dynamic Pending, its class pv-binder-external without allowVolumeExpansion). The oracle
// is k8s.io/kubernetes v1.37.2 ValidatePersistentVolumeClaimUpdate, which refuses every spec
// change but a bound claim's storage request and volumeAttributesClassName (volumeName set once,
// storageClassName set from nil), and the PersistentVolumeClaimResize admission plugin, which
// lets the request grow only where the claim's StorageClass has allowVolumeExpansion: true. Every
// such change passed the gate as "kapp applies it on deploy" (newcomer7 N7-3).
func TestClaimSpecChangeTheServerRefusesFailsTheGate(t *testing.T) {
	const dir = "../fixtures/pv-binder/"
	set := func(v any, path ...string) func(map[string]any) {
		return func(o map[string]any) {
			if err := unstructured.SetNestedField(o, v, path...); err != nil {
				t.Fatal(err)
			}
		}
	}
	storage := []string{"spec", "resources", "requests", "storage"}
	for _, c := range []struct {
		name, claim, path string
		edit              func(map[string]any)
		bound, expands    bool // the live claim made Bound; its live class given allowVolumeExpansion
		fails             bool
	}{
		{"class of a bound claim", "static", "spec.storageClassName", set("other", "spec", "storageClassName"), false, false, true},
		{"access modes", "static", "spec.accessModes[0]", set([]any{"ReadWriteMany"}, "spec", "accessModes"), false, false, true},
		{"size of an unbound claim", "dynamic", "spec.resources.requests.storage", set("2Gi", storage...), false, false, true},
		{"growth, class not expanding", "dynamic", "spec.resources.requests.storage", set("2Gi", storage...), true, false, true},
		{"growth, class expanding", "dynamic", "spec.resources.requests.storage", set("2Gi", storage...), true, true, false},
		{"shrink to the capacity", "static", "spec.resources.requests.storage", set("512Mi", storage...), false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture("pv-binder")
			in.Desired = []string{editedFixture(t, dir+"desired.yaml", func(u *unstructured.Unstructured) bool {
				if u.GetKind() == "PersistentVolumeClaim" && u.GetName() == c.claim {
					c.edit(u.Object)
				}
				return true
			})}
			in.Live = []string{editedFixture(t, dir+"live.yaml", func(u *unstructured.Unstructured) bool {
				switch {
				case c.bound && u.GetKind() == "PersistentVolumeClaim" && u.GetName() == c.claim:
					set("Bound", "status", "phase")(u.Object)
					set(map[string]any{"storage": "1Gi"}, "status", "capacity")(u.Object)
				case c.expands && u.GetKind() == "StorageClass":
					set(true, "allowVolumeExpansion")(u.Object)
				}
				return true
			})}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind != "PersistentVolumeClaim" || f.Path != c.path {
					continue
				}
				found = true
				want := verdict.KindPending
				if c.fails {
					want = verdict.KindImmutable
				}
				if f.Kind != want || f.Fails != c.fails {
					t.Errorf("%s %s: want %s (fails %v), got %s (fails %v): %s", c.claim, c.path, want, c.fails, f.Kind, f.Fails, f.Evidence)
				}
			}
			if !found {
				t.Errorf("no finding at %s of claim %s", c.path, c.claim)
			}
		})
	}
}
