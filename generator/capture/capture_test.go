package capture

import (
	"encoding/base64"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
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
	desired := Desired([]*unstructured.Unstructured{out})
	if len(desired) != 1 || desired[0].Object["data"].(map[string]any)["password"] != Redacted || desired[0].Object["stringData"] != nil {
		t.Fatalf("desired must hold the placeholder in data, as live does: %v", desired)
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
