package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// A live object whose kapp.k14s.io/original holds null: kapp's deploy panics on it, and check
// said only "kapp panicked: runtime error: invalid memory address or nil pointer dereference",
// naming the manifest's document but not the live object or its annotation (probe11 P11-5).
func TestOriginalNullNamesTheLiveObject(t *testing.T) {
	in := fixture("hpa-replicas")
	live := editedFixture(t, in.Live[0], func(u *unstructured.Unstructured) bool {
		if u.GetKind() == "Deployment" {
			ann := u.GetAnnotations()
			if _, ok := ann["kapp.k14s.io/original"]; !ok {
				t.Fatal("the fixture's Deployment has no kapp.k14s.io/original")
			}
			ann["kapp.k14s.io/original"] = "null"
			u.SetAnnotations(ann)
		}
		return true
	})
	in.Live = []string{live}
	_, err := generator.Check(in, nil)
	want := "--live " + live + ": document "
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "metadata.annotations[kapp.k14s.io/original] holds null") || strings.Contains(err.Error(), "panicked") {
		t.Errorf("check: %v, want the live object's document (%q) and its annotation named", err, want)
	}
}
