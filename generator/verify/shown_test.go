package verify

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Shown asks kapp no more than each answer needs (a change of the same resources as the
// baseline's, one base after the other); its answers must be those of kapp's full verdict on
// every changed pair under both bases: an update whose diff is not the unchanged pair's.
func TestShownAgreesWithKappsFullVerdict(t *testing.T) {
	desired := obj(t, deploymentYAML)
	live := kappDeploy(t, desired)["web"]
	mergeYAML(t, live, deploymentLater)
	mergeYAML(t, live, `{spec: {replicas: 5}, status: {replicas: 5}}`)
	changes := []struct {
		name, patch string
		shown       bool // what kapp's diff says, read from the diffs in TestControllerChangedReplicas
	}{
		// the rule copies the live replicas: the same change as the unchanged pair's
		{"replicas", `{spec: {replicas: 3}}`, false},
		// a new image: kapp updates under both bases, under the live base on top of the defaults
		{"image", `{spec: {template: {spec: {containers: [{image: "nginx:1.28"}]}}}}`, true},
		// the stored value declared: an update under both bases, under the live base one whose
		// diff lacks a line the unchanged pair's diff has (the default it showed as removed)
		{"progressDeadlineSeconds as stored", `{spec: {progressDeadlineSeconds: 600}}`, true},
		{"a label", `{metadata: {labels: {tier: front}}}`, true},
	}
	configs := []*unstructured.Unstructured{obj(t, replicasRule)}
	var pairs []Pair
	for _, c := range changes {
		d := desired.DeepCopy()
		mergeYAML(t, d, c.patch)
		pairs = append(pairs, Pair{Desired: d, Live: live})
	}
	unchanged := Pair{Desired: desired, Live: live}
	plain := verify1(t, unchanged, configs...)
	bs, _, err := Baselines(1, func(int) (Pair, error) { return unchanged, nil }, configs, nil)
	if err != nil {
		t.Fatal(err)
	}
	fingerprinted := bs[0]
	if !fingerprinted.Alone || len(fingerprinted.Change) != 2 || plain.Change != nil {
		t.Fatalf("Baselines: Alone %t, %d fingerprints; Verify: %d fingerprints", fingerprinted.Alone, len(fingerprinted.Change), len(plain.Change))
	}
	for i, c := range changes {
		full := verify1(t, pairs[i], configs...) // one copy of a resource per call
		oracle := true
		for _, b := range Bases() {
			if full.Op[b] != OpUpdate || (plain.Op[b] == OpUpdate && full.Diff[b] == plain.Diff[b]) {
				oracle = false
			}
		}
		// against a baseline with fingerprints (kapp's text diff skipped where the change is the
		// baseline's) and without (kapp's op and diff on every base asked)
		for _, base := range []Result{fingerprinted, plain} {
			got, err := Shown(1, func(int) (Pair, error) { return pairs[i], nil }, func(int) Result { return base }, configs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != oracle || got[0] != c.shown {
				t.Errorf("%s (%d fingerprints): Shown says %t, kapp's full verdict %t, want %t\nlast-applied: %s\n%s\nlive: %s\n%s", c.name, len(base.Change), got[0], oracle, c.shown,
					full.Op[LastApplied], full.Diff[LastApplied], full.Op[Live], full.Diff[Live])
			}
		}
	}
}

// Alone says when a Result is kapp's verdict on its pair and the configs only, so that it may
// stand for the same pair verified in another call.
func TestAlone(t *testing.T) {
	cm := obj(t, `
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-env
  namespace: shop
  annotations: {kapp.k14s.io/versioned: ""}
data: {MODE: blue}
`)
	dep, settings := obj(t, deploymentYAML), obj(t, configMapYAML)
	lives := kappDeploy(t, cm, dep, settings)
	config := obj(t, `
apiVersion: v1
kind: ConfigMap
metadata:
  name: kapp-config
  namespace: shop
  labels: {kapp.k14s.io/config: ""}
data:
  config.yml: |
    apiVersion: kapp.k14s.io/v1alpha1
    kind: Config
`)
	noApp := lives["web"].DeepCopy()
	labels := noApp.GetLabels()
	delete(labels, "kapp.k14s.io/app")
	noApp.SetLabels(labels)

	for _, c := range []struct {
		name  string
		pairs []Pair
		alone []bool
	}{
		{"plain pairs", []Pair{{Desired: dep, Live: lives["web"]}, {Desired: settings, Live: lives["web-settings"]}}, []bool{true, true}},
		// the versioned pair is diffed alone; the other with it, as kapp rewrites references to it
		{"beside a versioned pair of the app", []Pair{{Desired: cm, Live: lives["web-env-ver-1"]}, {Desired: settings, Live: lives["web-settings"]}}, []bool{true, false}},
		{"beside a labelled config ConfigMap", []Pair{{Desired: dep, Live: lives["web"]}, {Desired: config, Live: nil}}, []bool{false, false}},
		{"a live object without the app label", []Pair{{Desired: dep, Live: noApp}}, []bool{false}},
		{"no live object", []Pair{{Desired: dep, Live: nil}}, []bool{false}},
	} {
		rs, err := Verify(c.pairs, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, r := range rs {
			if r.Alone != c.alone[i] {
				t.Errorf("%s: pair %d Alone %t, want %t", c.name, i, r.Alone, c.alone[i])
			}
		}
	}
}

// canonical (Fingerprint's encoding) is the same for the same object however it was built, and
// differs wherever the objects or their Go types differ, also where a concatenation of keys or
// strings would not tell them apart.
func TestCanonicalTellsObjectsApart(t *testing.T) {
	enc := func(v any) string {
		b, err := canonical(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := map[string]any{"x": int64(1), "y": []any{"a", map[string]any{}}}
	b := map[string]any{}
	b["y"] = []any{"a", map[string]any{}}
	b["x"] = int64(1)
	if enc(a) != enc(b) {
		t.Errorf("the same object, built in another order: %q vs %q", enc(a), enc(b))
	}
	distinct := []any{
		nil, true, false, "", "1", int64(1), float64(1), int32(1), []any{}, map[string]any{},
		[]any{"ab"}, []any{"a", "b"}, []any{nil}, []any{[]any{}},
		map[string]any{"ab": "c"}, map[string]any{"a": "bc"}, map[string]any{"a": "b", "c": ""},
		map[string]any{"a": nil}, map[string]any{"a": map[string]any{}}, map[string]any{"a": []any{}},
	}
	seen := map[string]int{}
	for i, v := range distinct {
		if j, ok := seen[enc(v)]; ok {
			t.Errorf("%#v and %#v encode alike", distinct[j], v)
		}
		seen[enc(v)] = i
	}
}
