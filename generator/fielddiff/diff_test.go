package fielddiff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func obj(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	objs, err := load.Bytes("test.yaml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return objs[0].Unstructured
}

func render(ds []Delta) string {
	var lines []string
	for _, d := range ds {
		s := string(d.Change) + " " + d.Path.String()
		if d.Noise != "" {
			s += " (noise: " + d.Noise + ")"
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

const desiredDeploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
        resources: {limits: {cpu: "0.5", memory: 1024Mi}, requests: {cpu: 1000m}}
      - name: log
        image: busybox
`

func TestDiffKeyedListsQuantitiesAndNoise(t *testing.T) {
	live := obj(t, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  uid: "1234"
  resourceVersion: "99"
  labels: {app: web, kapp.k14s.io/app: "1"}
  annotations: {kapp.k14s.io/original: "{}", deployment.kubernetes.io/revision: "1"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      dnsPolicy: ClusterFirst
      containers:
      - name: log
        image: busybox
      - name: web
        image: nginx:1.25
        imagePullPolicy: IfNotPresent
        ports: [{containerPort: 80, protocol: TCP}]
        resources: {limits: {cpu: 500m, memory: 1Gi}, requests: {cpu: "1"}}
      - name: istio-proxy
        image: proxy
status: {replicas: 2}
`)
	ds, err := Diff(obj(t, desiredDeploy), live)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`added metadata.annotations["deployment.kubernetes.io/revision"]`,
		`added metadata.annotations["kapp.k14s.io/original"] (noise: kapp-metadata)`,
		`added metadata.labels["kapp.k14s.io/app"] (noise: kapp-metadata)`,
		`added metadata.resourceVersion (noise: server-metadata)`,
		`added metadata.uid (noise: server-metadata)`,
		`modified spec.replicas`,
		`added spec.template.spec.containers[name=istio-proxy]`,
		`added spec.template.spec.containers[name=web].imagePullPolicy`,
		// the key field protocol is defaulted by the schema, so the item pairs and only its leaf differs
		`added spec.template.spec.containers[name=web].ports[containerPort=80,protocol=TCP].protocol`,
		// same quantities written differently: not modified, but kapp compares text, so reported
		"canonical spec.template.spec.containers[name=web].resources.limits.cpu",
		"canonical spec.template.spec.containers[name=web].resources.limits.memory",
		"canonical spec.template.spec.containers[name=web].resources.requests.cpu",
		`added spec.template.spec.dnsPolicy`,
		`added status.replicas (noise: status)`,
	}, "\n")
	if got := render(ds); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, d := range ds {
		if d.Path.String() == "spec.replicas" && (d.Desired != int64(1) || d.Live != int64(2)) {
			t.Errorf("replicas values: %v -> %v", d.Desired, d.Live)
		}
	}
}

func TestDiffEqualObjectsHaveNoDelta(t *testing.T) {
	ds, err := Diff(obj(t, desiredDeploy), obj(t, desiredDeploy))
	if err != nil || len(ds) != 0 {
		t.Fatalf("want no delta, got %v %v", render(ds), err)
	}
	ds, err = Diff(obj(t, desiredDeploy), obj(t, strings.ReplaceAll(desiredDeploy, `cpu: "0.5"`, `cpu: 500m`)))
	if err != nil || render(ds) != "canonical spec.template.spec.containers[name=web].resources.limits.cpu" {
		t.Fatalf("want one canonical delta, got %v %v", render(ds), err)
	}
	if ds[0].Desired != "0.5" || ds[0].Live != "500m" {
		t.Errorf("values as written: %v -> %v", ds[0].Desired, ds[0].Live)
	}
}

func TestDiffCustomResourceByIndex(t *testing.T) {
	d := obj(t, "apiVersion: example.dev/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 1, items: [{a: 1}]}\n")
	l := obj(t, "apiVersion: example.dev/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 1.0, mode: fast, items: [{a: 1, b: 2}]}\n")
	ds, err := Diff(d, l)
	if err != nil {
		t.Fatal(err)
	}
	if got := render(ds); got != "added spec.items[0].b\nadded spec.mode" { // atomic lists are split into differing leaves
		t.Errorf("got:\n%s", got)
	}
}

// TestStayDifferentHoldsOnceNormalised: where stayDifferent says two values cannot become equal
// in normalisation, Normalize (the oracle) keeps them different in a field of each kind that
// holds integers or booleans (int32, int64, Quantity, IntOrString, bool), so Diff may skip it.
func TestStayDifferentHoldsOnceNormalised(t *testing.T) {
	fields := []struct {
		yaml string // the Pod's spec with %v for the value
		path []any
	}{
		{"activeDeadlineSeconds: %v", []any{"activeDeadlineSeconds"}},
		{"hostNetwork: %v", []any{"hostNetwork"}},
		{"containers: [{name: c, ports: [{containerPort: %v}]}]", []any{"containers", 0, "ports", 0, "containerPort"}},
		{"containers: [{name: c, resources: {limits: {cpu: %v}}}]", []any{"containers", 0, "resources", "limits", "cpu"}},
		{"containers: [{name: c, readinessProbe: {httpGet: {port: %v}}}]", []any{"containers", 0, "readinessProbe", "httpGet", "port"}},
	}
	values := []string{"0", "1", "-1", "2147483647", "-2147483648", "4294967297", "1000", "true", "false"}
	normalised := func(field, v string, path []any) any {
		o := Normalize(obj(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {"+strings.ReplaceAll(field, "%v", v)+"}\n"))
		var cur any = o.Object["spec"]
		for _, k := range path {
			switch k := k.(type) {
			case string:
				cur = cur.(map[string]any)[k]
			case int:
				cur = cur.([]any)[k]
			}
		}
		return cur
	}
	for _, a := range values {
		for _, b := range values {
			decoded := func(v string) any { return obj(t, "apiVersion: v1\nkind: X\nmetadata: {name: x}\nv: "+v).Object["v"] }
			if !stayDifferent(decoded(a), decoded(b)) {
				continue
			}
			for _, f := range fields {
				if na, nb := normalised(f.yaml, a, f.path), normalised(f.yaml, b, f.path); Equal(na, nb) {
					t.Errorf("%s and %s in %q: equal once normalised (%v)", a, b, f.yaml, na)
				}
			}
		}
	}
}

// TestComparedDeclaredIsDeclared: the declared fields Compare hands on, reusing its conversion
// of desired where it can, are those Declared finds converting desired afresh: a plain object,
// one with kapp's keys or a Secret's stringData (compared as something else), desired and live
// under different apiVersions, a live the built-in schema rejects, and a custom resource.
func TestComparedDeclaredIsDeclared(t *testing.T) {
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: default}\n"
	cases := []struct {
		name, desired, live string
		reused              bool
	}{
		{"plain", desiredDeploy, desiredDeploy, true},
		{"kapp keys", strings.Replace(desiredDeploy, "labels: {app: web}}", "labels: {app: web, kapp.k14s.io/app: \"1\"}}", 1), desiredDeploy, false},
		{"stringData", secret + "stringData: {a: b}\n", secret + "data: {a: Yg==}\n", false},
		{"apiVersions differ", desiredDeploy, strings.Replace(desiredDeploy, "apps/v1", "apps/v1beta2", 1), false},
		{"live rejected", desiredDeploy, strings.Replace(desiredDeploy, "replicas: 1", "replicas: {a: b}", 1), false},
		{"desired rejected", strings.Replace(desiredDeploy, "replicas: 1", "replicas: {a: b}", 1), desiredDeploy, true},
		{"custom resource", "apiVersion: x.io/v1\nkind: X\nmetadata: {name: x}\nspec: {a: [1, 2]}\n", "apiVersion: x.io/v1\nkind: X\nmetadata: {name: x}\nspec: {a: [1]}\n", true},
	}
	for _, c := range cases {
		d, l := obj(t, c.desired), obj(t, c.live)
		want, err := Declared(d)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		compared, err := Compare(d, l)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if reused := compared.typedDesired != nil; reused != c.reused {
			t.Errorf("%s: conversion reused %v, want %v", c.name, reused, c.reused)
		}
		got, err := compared.Declared()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !got.Equals(want) || got.Empty() {
			t.Errorf("%s: declared %s, want %s", c.name, got, want)
		}
	}
}

// TestManagedFieldsAsWhole: comparing a live object without its managedFields, then adding them
// as one delta, gives exactly the deltas of comparing the objects whole: for every captured pair,
// and for live managedFields the shortcut must leave alone (an entry with a field the schema
// lacks, or of another type, makes the built-in schema reject the object; a desired object
// declaring managedFields; a desired object without metadata).
func TestManagedFieldsAsWhole(t *testing.T) {
	dirs, err := filepath.Glob("../../fixtures/*/scenario.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	var pairs [][2]*unstructured.Unstructured
	for _, s := range dirs {
		var sides [2][]load.Object
		for i, name := range []string{"desired.yaml", "live.yaml"} {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(s), name))
			if err != nil {
				t.Fatal(err)
			}
			if sides[i], err = load.Bytes(name, data); err != nil {
				t.Fatal(err)
			}
		}
		for i := range min(len(sides[0]), len(sides[1])) {
			pairs = append(pairs, [2]*unstructured.Unstructured{sides[0][i].Unstructured, sides[1][i].Unstructured})
		}
	}
	entry := `{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}%s}`
	for _, c := range []struct{ desired, live string }{
		{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[` + fmt.Sprintf(entry, "") + `]},"data":{"a":"2"}}`},
		{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[` + fmt.Sprintf(entry, `,"other":"x"`) + `]},"data":{"a":"2","b":{"c":1}}}`},
		{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[` + fmt.Sprintf(entry, `,"subresource":5`) + `]},"data":{"a":"2","b":{"c":1}}}`},
		{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[]},"data":{"a":"1"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[` + fmt.Sprintf(entry, "") + `]},"data":{"a":"2"}}`},
		{`{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[` + fmt.Sprintf(entry, "") + `]},"data":{"a":"2"}}`},
		{`{"apiVersion":"x/v1","kind":"W","metadata":{"name":"w"},"spec":{"l":[1]}}`, `{"apiVersion":"x/v1","kind":"W","metadata":{"name":"w","managedFields":[` + fmt.Sprintf(entry, "") + `]},"spec":{"l":[1,2]}}`},
	} {
		var d, l map[string]any
		if err := json.Unmarshal([]byte(c.desired), &d); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.live), &l); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, [2]*unstructured.Unstructured{{Object: d}, {Object: l}})
	}
	skipped := 0
	for _, p := range pairs {
		lk, _ := stripKapp(p[1], nil)
		if _, mf := withoutManagedFields(p[0], lk); mf != nil {
			skipped++
		}
		got, errGot := Compare(p[0], p[1])
		want, errWant := compareObjects(p[0], p[1], true)
		if (errGot == nil) != (errWant == nil) {
			t.Fatalf("%s: error %v, compared whole %v", p[1].GetName(), errGot, errWant)
		}
		if errGot != nil {
			continue
		}
		if g, w := deltaText(got.Deltas), deltaText(want.Deltas); g != w {
			t.Errorf("%s %s: deltas differ from the whole comparison's:\n%s\nwant\n%s", p[1].GetKind(), p[1].GetName(), g, w)
		}
	}
	if skipped == 0 || skipped == len(pairs) {
		t.Errorf("the shortcut was taken for %d of %d pairs: the test compares nothing", skipped, len(pairs))
	}
}

func deltaText(ds []Delta) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %s %s %q desired %#v live %#v\n", d.Path, d.Change, d.Noise, d.Desired, d.Live)
	}
	return b.String()
}

// kapp writes its labels into a pod template the manifest has no metadata for (its
// ownershipLabelRules create the map): the live template's other labels, a Job's job-name,
// are findings key by key, not a template metadata the manifest lacks (newcomer24 finding 2:
// "spec.template.metadata pending"). Where the live object has no such map, the map kapp's keys
// alone made is no difference.
func TestDiffKappOnlyMapSplitsWhereLiveHoldsIt(t *testing.T) {
	const desired = `apiVersion: batch/v1
kind: Job
metadata: {name: m, namespace: ns, labels: {kapp.k14s.io/app: "1"}}
spec:
  template:
    metadata: {labels: {kapp.k14s.io/app: "1", kapp.k14s.io/association: v1.x}}
    spec: {restartPolicy: Never, containers: [{name: c, image: i}]}
`
	const live = `apiVersion: batch/v1
kind: Job
metadata: {name: m, namespace: ns}
spec:
  template:
    metadata: {labels: {kapp.k14s.io/app: "1", kapp.k14s.io/association: v1.x, job-name: m}}
    spec: {restartPolicy: Never, containers: [{name: c, image: i}]}
`
	ds, err := Diff(obj(t, desired), obj(t, live))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		if d.Noise == "" {
			got = append(got, fmt.Sprintf("%s %s", d.Change, d.Path))
		}
	}
	if want := []string{fmt.Sprintf("%s spec.template.metadata.labels.job-name", Added)}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// An item Git inserts into an atomic list before the live items' end (a NetworkPolicy's ingress
// rules, a custom resource's list) was reported index by index: every item from the insertion on
// compared with the live item before it, field by field, and the last live item as the items the
// manifest adds (newcomer14 N14-3). It is one change of the list now; an item appended after the
// live items keeps the comparison by index (the others still need their defaults' copies), and a
// list of scalars (a container's args) was one change already. Expectations written by hand.
func TestDiffInsertionIntoAnAtomicList(t *testing.T) {
	policy := func(ingress string) string {
		return "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: db, namespace: shop}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n  ingress:\n" + ingress
	}
	const (
		pg      = "  - ports: [{port: 5432}]\n"
		metrics = "  - ports: [{port: 9187}]\n"
		web     = "  - from: [{podSelector: {matchLabels: {app: web}}}]\n"
		pgLive  = "  - ports: [{port: 5432, protocol: TCP}]\n"
		mLive   = "  - ports: [{port: 9187, protocol: TCP}]\n"
	)
	widget := func(items string) string {
		return "apiVersion: example.dev/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: " + items + "}\n"
	}
	pod := func(args string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers:\n  - name: migrate\n    image: migrate:1\n    args: " + args + "\n"
	}
	for _, tc := range []struct {
		name, desired, live, want string
	}{
		{"inserted first", policy(web + pg + metrics), policy(pgLive + mLive), "modified spec.ingress"},
		{"inserted between", policy(pg + web + metrics), policy(pgLive + mLive), "modified spec.ingress"},
		{"appended", policy(pg + metrics + web), policy(pgLive + mLive),
			"added spec.ingress[0].ports[0].protocol\nadded spec.ingress[1].ports[0].protocol\nremoved spec.ingress[2]"},
		{"custom resource, inserted first", widget("[{a: 0}, {a: 1}]"), widget("[{a: 1, b: 2}]"), "modified spec.items"},
		{"custom resource, appended", widget("[{a: 1}, {a: 0}]"), widget("[{a: 1, b: 2}]"), "added spec.items[0].b\nremoved spec.items[1]"},
		{"args, inserted first", pod("[--dry-run, --all]"), pod("[--all]"), "modified spec.containers[name=migrate].args"},
	} {
		ds, err := Diff(obj(t, tc.desired), obj(t, tc.live))
		if err != nil {
			t.Fatal(err)
		}
		if got := render(ds); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
