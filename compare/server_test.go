package compare

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// serverObject reads an object of testdata/server (see its README: what the API server said).
func serverObject(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "server", name))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(b, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestUpdateWritesManagedFields: an update carrying managedFields replaces live's (probe5
// finding 16): `[{}]` resets them, a list that differs is stored; kube-apiserver v1.37.2 wrote
// both (a new resourceVersion). Omitted or equal managedFields leave live's.
func TestUpdateWritesManagedFields(t *testing.T) {
	c, err := New(WithUpdate())
	if err != nil {
		t.Fatal(err)
	}
	omitted := serverObject(t, "mf-reset.json")
	unstructured.RemoveNestedField(omitted.Object, "metadata", "managedFields")
	for _, tc := range []struct {
		name          string
		desired, live *unstructured.Unstructured
		want          Verdict
	}{
		{"reset with [{}]", serverObject(t, "mf-reset.json"), serverObject(t, "mf-live.json"), Changes},
		{"a stale list", serverObject(t, "mf-stale.json"), serverObject(t, "mf-live-none.json"), Changes},
		{"another list", serverObject(t, "mf-stale.json"), serverObject(t, "mf-live.json"), Changes},
		{"live's own list", serverObject(t, "mf-live.json"), serverObject(t, "mf-live.json"), NoChange},
		{"omitted", omitted, serverObject(t, "mf-live.json"), NoChange},
		{"reset of none", serverObject(t, "mf-reset.json"), serverObject(t, "mf-live-none.json"), NoChange},
	} {
		r, err := c.Compare(tc.desired, tc.live)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != tc.want {
			t.Errorf("%s: %s, want %s\n%s", tc.name, r.Verdict, tc.want, fields(r))
		}
	}
}
