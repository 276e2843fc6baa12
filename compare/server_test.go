package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/comparetruth"
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

// TestUpdateWritesStatusWithoutSubresource: a custom resource whose CRD gives no status
// subresource takes status from the main resource's update (probe5 finding 17: kube-apiserver
// v1.37.2 stored the changed status, and none for an update omitting it); with a status
// subresource live's status stays; without the CRD which of the two is unknown.
func TestUpdateWritesStatusWithoutSubresource(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "server", "status-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := object(t, string(b))
	withSub := crd.DeepCopy()
	versions, _, _ := unstructured.NestedSlice(withSub.Object, "spec", "versions")
	versions[0].(map[string]any)["subresources"] = map[string]any{"status": map[string]any{}}
	if err := unstructured.SetNestedSlice(withSub.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	comparer := func(opts ...Option) *Comparer {
		c, err := New(append([]Option{WithUpdate()}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	noSub, sub, none := comparer(WithCRDs(crd)), comparer(WithCRDs(withSub)), comparer()
	live := serverObject(t, "status-live.json")
	for _, tc := range []struct {
		name    string
		c       *Comparer
		desired string
		want    Verdict
		effect  Effect
	}{
		{"changed, no subresource", noSub, "status-changed.json", Changes, Set},
		{"omitted, no subresource", noSub, "status-omitted.json", Changes, Removed},
		{"as live, no subresource", noSub, "status-live.json", NoChange, ""},
		{"changed, subresource", sub, "status-changed.json", NoChange, ""},
		{"omitted, subresource", sub, "status-omitted.json", NoChange, ""},
		{"changed, no CRD", none, "status-changed.json", Unsure, Unknown},
		{"omitted, no CRD", none, "status-omitted.json", Unsure, Unknown},
	} {
		r, err := tc.c.Compare(serverObject(t, tc.desired), live)
		if err != nil {
			t.Fatal(err)
		}
		var effect Effect
		for _, f := range r.Fields {
			if f.Path == "status" {
				effect = f.Effect
			}
		}
		if r.Verdict != tc.want || effect != tc.effect || tc.want == Unsure && !hasEvidence(r) {
			t.Errorf("%s: %s, status %q; want %s, %q\n%s", tc.name, r.Verdict, effect, tc.want, tc.effect, fields(r))
		}
	}
}

// TestApplyOwnsEmptyValues: an apply declaring an empty value the server drops (or keeps as live
// holds it) records the manager as the field's owner (newcomer3 finding 9: kube-apiserver
// v1.37.2's dry run added each to my-controller's fieldsV1): Changes, the field owned.
func TestApplyOwnsEmptyValues(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "server", "empty-live.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	live := object(t, string(b))
	c, err := New(WithApply("my-controller"))
	if err != nil {
		t.Fatal(err)
	}
	base := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: lib1, labels: {app: web}}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports:
        - containerPort: 80
        resources:
          requests: {cpu: 100m, memory: 64Mi}
        env:
        - {name: A, value: "1"}
`
	for _, tc := range []struct{ name, field, desired string }{
		{"the applied object", "", base},
		{"template creationTimestamp: null", "spec.template.metadata.creationTimestamp",
			strings.Replace(base, "      labels: {app: web}\n", "      labels: {app: web}\n      creationTimestamp: null\n", 1)},
		{"template annotations: {}", "spec.template.metadata.annotations",
			strings.Replace(base, "      labels: {app: web}\n", "      labels: {app: web}\n      annotations: {}\n", 1)},
		{"limits: {}", "spec.template.spec.containers[name=web].resources.limits",
			strings.Replace(base, "requests: {cpu: 100m, memory: 64Mi}\n", "requests: {cpu: 100m, memory: 64Mi}\n          limits: {}\n", 1)},
		{"nodeSelector: {}", "spec.template.spec.nodeSelector", base + "      nodeSelector: {}\n"},
		{"top-level creationTimestamp: null (never owned)", "", strings.Replace(base, "metadata: {name: web,", "metadata: {creationTimestamp: null, name: web,", 1)},
	} {
		r, err := c.Compare(object(t, tc.desired), live)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range r.Fields {
			if f.Effect != Kept {
				got = append(got, f.Path+" "+string(f.Effect))
			}
		}
		want, verdict := []string{tc.field + " owned"}, Changes
		if tc.field == "" {
			want, verdict = nil, NoChange
		}
		if r.Verdict != verdict || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %s %v, want %s %v\n%s", tc.name, r.Verdict, got, verdict, want, fields(r))
		}
	}
}

// TestApplyCustomResourceWithoutLabels: a custom resource's metadata holding only its name and
// namespace is owned by nobody (newcomer3 finding 8: kube-apiserver v1.37.2's dry run of the
// same apply was a no-op), with and without its CRD.
func TestApplyCustomResourceWithoutLabels(t *testing.T) {
	read := func(name string) *unstructured.Unstructured {
		b, err := os.ReadFile(filepath.Join("testdata", "server", name))
		if err != nil {
			t.Fatal(err)
		}
		return object(t, string(b))
	}
	live := read("cr-live.yaml")
	desired := "apiVersion: shop.example.com/v1\nkind: Cache\nmetadata: {name: c1, namespace: lib1}\nspec: {ttlSeconds: 100}\n"
	for _, opts := range [][]Option{{WithApply("my-controller")}, {WithApply("my-controller"), WithCRDs(read("cr-crd.yaml"))}} {
		c, err := New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{desired, strings.Replace(desired, "spec: {ttlSeconds: 100}", "spec: {ttlSeconds: 200}", 1)} {
			r, err := c.Compare(object(t, d), live)
			if err != nil {
				t.Fatal(err)
			}
			want := NoChange
			if d != desired {
				want = Changes
			}
			if r.Verdict != want {
				t.Errorf("%d options, %s: %s, want %s\n%s", len(opts), d, r.Verdict, want, fields(r))
			}
		}
	}
}

// TestApplyReleasesSharedField: a field another manager owns too stays when the apply no longer
// declares it; only the applier's ownership goes (probe5 finding 24, newcomer3 finding 13:
// kube-apiserver v1.37.2 kept data.k). Owned, not removed.
func TestApplyReleasesSharedField(t *testing.T) {
	live := serverObject(t, "shared-live.json")
	c, err := New(WithApply("ctl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		data string
		want map[string]Effect
	}{
		{`{j: w}`, map[string]Effect{"data.k": Owned}},
		{`{k: v}`, map[string]Effect{"data.j": Removed}},
		{`{}`, map[string]Effect{"data.j": Removed, "data.k": Owned}},
	} {
		r, err := c.Compare(object(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s, namespace: default}\ndata: "+tc.data), live)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Effect{}
		for _, f := range r.Fields {
			got[f.Path] = f.Effect
		}
		if r.Verdict != Changes || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("data %s: %s %v, want Changes %v\n%s", tc.data, r.Verdict, got, tc.want, fields(r))
		}
	}
}

// TestServerWrites judges every write of testdata/server/writes.yaml (make e2e asks the API
// server again) and holds the verdict to the server's answer: Changes exactly where its dry run
// changed the object; without the CRD the verdict may be Unsure, never NoChange where the
// server changed something.
func TestServerWrites(t *testing.T) {
	writes, err := comparetruth.ReadServerWrites(filepath.Join("testdata", "server"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if w.LiveObject == nil {
			t.Errorf("%s: %s is missing (captured by the e2e test TestServerWrites -record)", w.Name, w.Live)
			continue
		}
		mode := WithUpdate()
		if w.Write.Op == "apply" {
			mode = WithApply(w.Write.Manager)
		}
		judge := func(opts ...Option) *Result {
			c, err := New(append([]Option{mode}, opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Compare(&unstructured.Unstructured{Object: w.Write.Object}, w.LiveObject)
			if err != nil {
				t.Fatalf("%s: %v", w.Name, err)
			}
			return r
		}
		want := NoChange
		if w.Changed {
			want = Changes
		}
		if w.CRDObject == nil {
			if r := judge(); r.Verdict != want {
				t.Errorf("%s: %s, the server: changed %v %v\n%s", w.Name, r.Verdict, w.Changed, w.Differs, fields(r))
			}
			continue
		}
		if r := judge(WithCRDs(w.CRDObject)); r.Verdict != want {
			t.Errorf("%s: %s, the server: changed %v %v\n%s", w.Name, r.Verdict, w.Changed, w.Differs, fields(r))
		}
		if r := judge(); w.Changed && r.Verdict == NoChange || !w.Changed && r.Verdict == Changes || r.Verdict == Unsure && !hasEvidence(r) {
			t.Errorf("%s without the CRD: %s, the server: changed %v %v\n%s", w.Name, r.Verdict, w.Changed, w.Differs, fields(r))
		}
	}
}

// TestApplyWritesStatusWithoutSubresource: a custom resource whose CRD gives no status
// subresource takes status from the main resource's apply as any other field (probe5 finding 17;
// apiextensions-apiserver's strategy resets status only with the subresource): kube-apiserver
// v1.37.2 set the changed phase, removed the status its manager no longer declared, and left a
// status another manager wrote (writes.yaml). Without the CRD, a status difference is Unsure.
func TestApplyWritesStatusWithoutSubresource(t *testing.T) {
	writes, err := comparetruth.ReadServerWrites(filepath.Join("testdata", "server"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]comparetruth.ServerWrite{}
	for _, w := range writes {
		byName[w.Name] = w
	}
	for _, tc := range []struct {
		write  string
		crd    bool
		want   Verdict
		path   string
		effect Effect
	}{
		{"apply-status-changed", true, Changes, "status.phase", Set},
		{"apply-status-omitted", true, Changes, "status.phase", Removed},
		{"apply-status-as-live", true, NoChange, "", ""},
		{"apply-status-created-by-another", true, NoChange, "", ""},
		{"apply-status-subresource", true, NoChange, "", ""},
		{"apply-status-changed", false, Unsure, "status", Unknown},
		{"apply-status-omitted", false, Unsure, "status", Unknown},
		{"apply-status-as-live", false, NoChange, "", ""},
	} {
		w, ok := byName[tc.write]
		if !ok {
			t.Fatalf("%s: not in %s", tc.write, comparetruth.WritesFile)
		}
		opts := []Option{WithApply(w.Write.Manager)}
		if tc.crd {
			opts = append(opts, WithCRDs(w.CRDObject))
		}
		c, err := New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Compare(&unstructured.Unstructured{Object: w.Write.Object}, w.LiveObject)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range r.Fields {
			got = append(got, f.Path+" "+string(f.Effect))
		}
		want := []string{}
		if tc.path != "" {
			want = []string{tc.path + " " + string(tc.effect)}
		}
		if r.Verdict != tc.want || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s (CRD %v): %s %v, want %s %v\n%s", tc.write, tc.crd, r.Verdict, got, tc.want, want, fields(r))
		}
	}
}
