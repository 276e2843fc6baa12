package capture

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

func obj(t *testing.T, s string) *unstructured.Unstructured {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func TestRedactSecretValuesEverywhere(t *testing.T) {
	marker := "MARKER-capture-s3cret"
	enc := base64.StdEncoding.EncodeToString([]byte(marker))
	u := obj(t, `apiVersion: v1
kind: Secret
metadata:
  name: db
  annotations:
    kapp.k14s.io/original: '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"stringData":{"password":"`+marker+`"}}'
    kubectl.kubernetes.io/last-applied-configuration: 'not json `+marker+`'
data: {password: `+enc+`}
`)
	out := redact(u)
	bs, _ := yaml.Marshal(out.Object)
	if strings.Contains(string(bs), marker) || strings.Contains(string(bs), enc) {
		t.Fatalf("a value survived:\n%s", bs)
	}
	got := desired([]*unstructured.Unstructured{out}, kappconv.Original)
	if len(got) != 1 || got[0].Object["data"].(map[string]any)["password"] != Redacted || got[0].Object["stringData"] != nil {
		t.Fatalf("desired must hold the placeholder in data, as live does: %v", got)
	}
	if out.Object["data"].(map[string]any)["password"] != Redacted {
		t.Fatalf("live data not redacted")
	}
}

func TestControllerMadeObjectsAreTransient(t *testing.T) {
	rs := obj(t, "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-1, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u, controller: true}]}\n")
	cm := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, ownerReferences: [{apiVersion: v1, kind: Secret, name: s, uid: u}]}\n")
	if !transient(rs) || transient(cm) {
		t.Fatalf("want only the controller-owned ReplicaSet transient")
	}
}

// TestRedactWhateverTheShape (probe5 finding 8): a copy of the applied manifest in a Secret's
// annotations whose shape is not a Secret's with maps of values (a List around the Secret, data
// or stringData a string, a value that is a map, a copy nested in the copy's own annotations)
// was kept verbatim, its values with it. No value may reach the captured objects or desired.
func TestRedactWhateverTheShape(t *testing.T) {
	const marker = "SUPERSECRET"
	secret := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"pw":"` + marker + `"}}`
	shapes := map[string]string{
		"list":              `{"apiVersion":"v1","kind":"List","items":[` + secret + `]}`,
		"data string":       `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":"` + marker + `"}`,
		"stringData string": `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":"` + marker + `"}`,
		"value a map":       `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"pw":{"nested":"` + marker + `"}}}`,
		"not a Secret":      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"pw":"` + marker + `"}}`,
		"no apiVersion":     `{"kind":"Secret","metadata":{"name":"s"},"stringData":{"pw":"` + marker + `"}}`,
		"metadata a string": `{"apiVersion":"v1","kind":"Secret","metadata":"` + marker + `"}`,
		"not JSON":          `{"stringData":{"pw":"` + marker + `"`,
		"nested copy":       nested(t, secret),
		"plain":             secret,
	}
	for name, orig := range shapes {
		for _, key := range []string{kappconv.Original, "kubectl.kubernetes.io/last-applied-configuration"} {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
				"metadata": map[string]any{"name": "s", "annotations": map[string]any{key: orig}},
				"data":     map[string]any{"pw": "eA=="}, "stringData": marker}}
			out := redact(u)
			bs, _ := yaml.Marshal(out.Object)
			for _, d := range desired([]*unstructured.Unstructured{out}, key) {
				db, _ := yaml.Marshal(d.Object)
				bs = append(bs, db...)
			}
			if strings.Contains(string(bs), marker) {
				t.Errorf("%s in %s: a Secret value survived:\n%s", name, key, bs)
			}
			if name == "plain" && !strings.Contains(string(bs), key) {
				t.Errorf("%s in %s: a Secret's copy of its manifest was dropped, want it redacted:\n%s", name, key, bs)
			}
		}
	}
}

// nested is a Secret whose last-applied annotation holds inner.
func nested(t *testing.T, inner string) string {
	bs, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"pw": "eA=="},
		"metadata": map[string]any{"name": "s", "annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": inner}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(bs)
}
