package generator_test

import (
	"encoding/json"
	"strings"
	"testing"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A change made in Git to metadata the API server refuses on update passed check as a pending
// change, exit 0, while kapp's deploy fails on it (issue 23, probe20 P20-3: an invalid label
// value, an invalid annotation key, annotations over 256 KiB, a kapp Config's additionalLabels
// with an invalid value, which kapp writes on every object; P20-7: a 140,000-byte annotation,
// which kapp's first update applies and its second, recording the manifest in
// kapp.k14s.io/original, holds twice). Every kind's update meets this validation, custom
// resources' too. The oracle: apimachinery's ValidateObjectMetaAccessorUpdate (what
// k8s.io/apiserver's rest.BeforeUpdate runs on every update) on the metadata of kapp's writes,
// built by hand from kapp v0.66.0's code (its labels; diff/resource_with_history.go: the applied
// manifest as compact JSON and a 32-character MD5 beside the object's annotations).
func TestMetadataTheServerRefusesFailsTheGate(t *testing.T) {
	const deploy = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: md
  labels: {app: web%s}
  annotations: {%s}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`
	const widget = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  namespace: md
  labels: {app: web%s}
spec: {size: 1}
`
	const config = `
---
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
additionalLabels: {team: %s}
`
	blob := func(n int) string { return "example.com/blob: " + strings.Repeat("x", n) }
	for _, tc := range []struct {
		name, live, desired string
		labels              map[string]string // those kapp's update sends besides the manifest's
		fails               bool
		names               string // in the evidence of the refusal
	}{
		{name: "label value", fails: true, names: "metadata.labels: Invalid value",
			live: fill(deploy, "", ""), desired: fill(deploy, ", team: 'not a valid value!'", "")},
		{name: "label value valid",
			live: fill(deploy, "", ""), desired: fill(deploy, ", team: ok", "")},
		{name: "annotation key", fails: true, names: "metadata.annotations: Invalid value",
			live: fill(deploy, "", ""), desired: fill(deploy, "", "'bad key!': x")},
		{name: "annotations over 256 KiB", fails: true, names: "metadata.annotations: Too long",
			live: fill(deploy, "", ""), desired: fill(deploy, "", blob(300000))},
		{name: "additionalLabels", fails: true, names: "metadata.labels: Invalid value", labels: map[string]string{"team": "not a valid value!"},
			live: fill(deploy, "", ""), desired: fill(deploy, "", "") + fill(config, "'not a valid value!'")},
		{name: "additionalLabels valid", labels: map[string]string{"team": "ok"},
			live: fill(deploy, "", ""), desired: fill(deploy, "", "") + fill(config, "ok")},
		{name: "annotation recorded twice (P20-7)", fails: true, names: "metadata.annotations: Too long",
			live: fill(deploy, "", ""), desired: fill(deploy, "", blob(140000))},
		{name: "annotation recorded twice under the limit",
			live: fill(deploy, "", ""), desired: fill(deploy, "", blob(100000))},
		{name: "custom resource label value", fails: true, names: "metadata.labels: Invalid value",
			live: fill(widget, ""), desired: fill(widget, ", team: 'not a valid value!'")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if errs := metadataOracle(t, tc.desired, tc.labels); (len(errs) > 0) != tc.fails {
				t.Fatalf("oracle: the server refuses the update: %v, want %v (%v)", len(errs) > 0, tc.fails, errs)
			}
			in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", tc.desired)}, Live: []string{writeFile(t, "live.yaml", kappApplied(t, tc.live, func(map[string]any) {}))}, Namespace: "md"}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			found, refused := false, false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindResidual || !strings.HasPrefix(f.Path, "metadata.") {
					continue // the server's defaults (no rules), not judged here
				}
				found = true
				refused = refused || f.Kind == verdict.KindImmutable && f.Fails && strings.Contains(f.Evidence, "the API server refuses kapp's update") && strings.Contains(f.Evidence, tc.names)
				if !tc.fails && (f.Fails || f.Kind != verdict.KindPending) {
					t.Errorf("check: want a pending change, got %s %s (fails %v): %s", f.Kind, f.Path, f.Fails, f.Evidence)
				}
			}
			if !found {
				t.Error("check: no finding of metadata")
			}
			if tc.fails && !refused {
				t.Errorf("check: no finding fails the gate as refused (%q)", tc.names)
			}
		})
	}
}

// metadataOracle is apimachinery's validation of kapp's update of the object of desired (its first
// document) over the live one kappApplied makes: the manifest's labels with kapp's and the Config's (labels),
// then, where that is accepted, kapp's update recording the manifest it applied.
func metadataOracle(t *testing.T, desired string, labels map[string]string) field.ErrorList {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(strings.Split(desired, "\n---\n")[0]), &obj); err != nil {
		t.Fatal(err)
	}
	m := obj["metadata"].(map[string]any)
	ls := map[string]string{"kapp.k14s.io/app": "1700000000000000000", "kapp.k14s.io/association": "v1.0123456789abcdef0123456789abcdef"}
	for k, v := range m["labels"].(map[string]any) {
		ls[k] = v.(string)
	}
	for k, v := range labels {
		ls[k] = v
	}
	anns := map[string]string{}
	if a, ok := m["annotations"].(map[string]any); ok {
		for k, v := range a {
			anns[k] = v.(string)
		}
	}
	meta := func(anns map[string]string) *metav1.ObjectMeta {
		return &metav1.ObjectMeta{Name: m["name"].(string), Namespace: "md", ResourceVersion: "1", Labels: ls, Annotations: anns}
	}
	old := meta(nil)
	if errs := apivalidation.ValidateObjectMetaAccessorUpdate(meta(anns), old, field.NewPath("metadata")); len(errs) > 0 {
		return errs
	}
	// the second write: the manifest as kapp applied it (its labels added), compact JSON
	applied := map[string]any{}
	for k, v := range m {
		applied[k] = v
	}
	lm := map[string]any{}
	for k, v := range ls {
		lm[k] = v
	}
	applied["labels"], obj["metadata"] = lm, applied
	record, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	anns["kapp.k14s.io/original"], anns["kapp.k14s.io/original-diff-md5"] = string(record), strings.Repeat("0", 32)
	return apivalidation.ValidateObjectMetaAccessorUpdate(meta(anns), meta(nil), field.NewPath("metadata"))
}
