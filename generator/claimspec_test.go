package generator_test

import (
	"strings"
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

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

// A bound claim's volumeAttributesClassName, which the server lets change (the PVC entry of
// rulesets/immutable.yaml excepts it), may not become nil or "" once the volume has a class
// applied (status.currentVolumeAttributesClassName): ValidatePersistentVolumeClaimUpdate's
// "update to nil (empty string) is forbidden". check said "pending change from Git", exit 0, and
// kapp's deploy failed (the known gap of fix28f); another class stays a pending change, as does
// the removal before any class is applied. The captured Bound claim of pv-binder, deployed
// with class gold; the oracle is the validation called on the update built by hand.
func TestClaimAttributesClassRemovalFailsTheGate(t *testing.T) {
	const dir = "../fixtures/pv-binder/"
	for _, c := range []struct {
		name    string
		class   any  // the manifest's volumeAttributesClassName; nil: removed
		current bool // the live status.currentVolumeAttributesClassName is gold
		fails   bool
		names   string
	}{
		{"removed, class applied", nil, true, true, "spec.volumeAttributesClassName: Forbidden: update to nil is forbidden when status.currentVolumeAttributesClassName is not nil"},
		{"emptied, class applied", "", true, true, "spec.volumeAttributesClassName: Forbidden: update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil"},
		{"another class", "silver", true, false, ""},
		{"removed, no class applied yet", nil, false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var to *string
			if s, ok := c.class.(string); ok {
				to = &s
			}
			if errs := claimClassUpdate(to, c.current); (len(errs) > 0) != c.fails {
				t.Fatalf("oracle: refused %v, want %v (%v)", len(errs) > 0, c.fails, errs)
			}
			static := func(u *unstructured.Unstructured) bool {
				return u.GetKind() == "PersistentVolumeClaim" && u.GetName() == "static"
			}
			in := fixture("pv-binder")
			in.Desired = []string{editedFixture(t, dir+"desired.yaml", func(u *unstructured.Unstructured) bool {
				if static(u) && c.class != nil {
					_ = unstructured.SetNestedField(u.Object, c.class, "spec", "volumeAttributesClassName")
				}
				return true
			})}
			// deployed with class gold: kapp's last apply, the live spec and, once the driver
			// applied it, the live status hold it
			in.Live = []string{editedFixture(t, dir+"live.yaml", func(u *unstructured.Unstructured) bool {
				if !static(u) {
					return true
				}
				_ = unstructured.SetNestedField(u.Object, "gold", "spec", "volumeAttributesClassName")
				if c.current {
					_ = unstructured.SetNestedField(u.Object, "gold", "status", "currentVolumeAttributesClassName")
				}
				setInOriginal(t, u, "gold", "spec", "volumeAttributesClassName")
				return true
			})}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind != "PersistentVolumeClaim" || f.Path != "spec.volumeAttributesClassName" {
					continue
				}
				found = true
				refused := f.Kind == verdict.KindImmutable && f.Fails && strings.Contains(f.Evidence, "ValidatePersistentVolumeClaimUpdate): "+c.names)
				if c.fails && !refused || !c.fails && (f.Fails || f.Kind != verdict.KindPending) {
					t.Errorf("want refused %v, got %s (fails %v): %s", c.fails, f.Kind, f.Fails, f.Evidence)
				}
			}
			if !found {
				t.Error("no finding at spec.volumeAttributesClassName")
			}
		})
	}
}

// claimClassUpdate is the server's validation of the update of the captured Bound claim, its
// class gold (applied when current), to one of class to (nil: none).
func claimClassUpdate(to *string, current bool) field.ErrorList {
	claim := func(class *string) *api.PersistentVolumeClaim {
		return &api.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "static", Namespace: "pv-binder", ResourceVersion: "1"},
			Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: ref("pv-binder-manual"), VolumeMode: ref(api.PersistentVolumeFilesystem), VolumeName: "pv-binder-static",
				Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: apiresource.MustParse("1Gi")}}, VolumeAttributesClassName: class},
			Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimBound}}
	}
	old := claim(ref("gold"))
	if current {
		old.Status.CurrentVolumeAttributesClassName = ref("gold")
	}
	nw := claim(to)
	nw.Status = old.Status
	return corevalidation.ValidatePersistentVolumeClaimUpdate(nw, old, corevalidation.ValidationOptionsForPersistentVolumeClaim(nw, old))
}
