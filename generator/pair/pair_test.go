package pair

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/rulesets"
)

func objs(t *testing.T, name, s string) []load.Doc {
	t.Helper()
	o, err := load.ParseDocs(name, []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func build(t *testing.T, desired, live string) (*Set, error) {
	rs, err := rulesets.Load()
	if err != nil {
		t.Fatal(err)
	}
	return Build(objs(t, "desired.yaml", desired), objs(t, "live.yaml", live), Options{Rules: rs})
}

func ids(ps []Pair) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID.String())
	}
	return strings.Join(out, "; ")
}

func TestPairing(t *testing.T) {
	desired := `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: view-web, namespace: ignored}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, annotations: {kapp.k14s.io/versioned: ""}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: new-one, namespace: apps}
---
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules: []
`
	live := `
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: view-web}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg-ver-1, namespace: default}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg-ver-2, namespace: default}
---
apiVersion: v1
kind: Secret
metadata: {name: gone, namespace: default}
`
	set, err := build(t, desired, live)
	if err != nil {
		t.Fatal(err)
	}
	want := "rbac.authorization.k8s.io/ClusterRole view-web; core/ConfigMap default/cfg; autoscaling/HorizontalPodAutoscaler default/web"
	if got := ids(set.Pairs); got != want {
		t.Errorf("pairs:\n got %s\nwant %s", got, want)
	}
	if set.Pairs[1].Live.Name != "cfg-ver-2" {
		t.Errorf("versioned resource should pair with the newest version, got %s", set.Pairs[1].Live.Name)
	}
	if hpa, err := set.Pairs[2].Desired.Object(); err != nil || hpa.GetNamespace() != "default" {
		t.Errorf("namespace not defaulted on desired HPA (%v)", err)
	}
	// no kapp labels: not kapp's to delete
	if len(set.Created) != 1 || set.Created[0].Name != "new-one" || len(set.Deleted) != 0 || len(set.LiveOnly) != 1 || set.LiveOnly[0].Name != "gone" {
		t.Errorf("created %v deleted %v live only %v", set.Created, set.Deleted, set.LiveOnly)
	}
	if len(set.Configs) != 1 {
		t.Errorf("kapp Config must not be paired: %d configs", len(set.Configs))
	}
}

func TestDuplicateDesiredIsAnErrorNamingBothDocuments(t *testing.T) {
	_, err := build(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n", "")
	if err == nil || !strings.Contains(err.Error(), "desired.yaml: document 2 (line 4)") || !strings.Contains(err.Error(), "document 1 (line 1)") {
		t.Fatalf("got %v", err)
	}
}

func TestLiveOnlyModeRecoversDesiredFromKappOriginal(t *testing.T) {
	live := `apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: default
  annotations:
    kapp.k14s.io/original: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"default"},"data":{"a":"1"}}'
data: {a: "2"}
`
	set, err := build(t, "", live)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Pairs) != 1 {
		t.Fatalf("got %+v", set.Pairs)
	}
	if d, err := set.Pairs[0].Desired.Object(); err != nil || d.Object["data"].(map[string]any)["a"] != "1" {
		t.Fatalf("got %+v", set.Pairs)
	}
	if _, err := build(t, "", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default, annotations: {kapp.k14s.io/original: '[1'}}\n"); err == nil || !strings.Contains(err.Error(), "kapp.k14s.io/original") {
		t.Fatalf("bad annotation: got %v", err)
	}
}

func TestCRDScopeDecidesNamespace(t *testing.T) {
	desired := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.dev}
spec: {group: example.dev, scope: Cluster, names: {kind: Widget, plural: widgets}}
---
apiVersion: example.dev/v1
kind: Widget
metadata: {name: w}
`
	set, err := build(t, desired, "apiVersion: example.dev/v1\nkind: Widget\nmetadata: {name: w}\n")
	if err != nil {
		t.Fatal(err)
	}
	if ids(set.Pairs) != "example.dev/Widget w" || len(set.CRDs) != 1 {
		t.Fatalf("got %s, %d CRDs", ids(set.Pairs), len(set.CRDs))
	}
}
