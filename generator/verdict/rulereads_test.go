package verdict

import (
	"reflect"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func object(t *testing.T, text string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// TestRuleNotJudgedOnEveryRun (issue 23, probe12 P12-7): whether a rule is judged comes from what
// its program reads, not from the mutation check's draws: 20 runs on the same inputs, the same
// verdict, for a rule deciding on the text of the manifest's image, and none for one copying the
// live replicas it writes.
func TestRuleNotJudgedOnEveryRun(t *testing.T) {
	desired := object(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: ns},
spec: {replicas: 1, template: {spec: {containers: [{name: web, image: "nginx:1.27"}]}}}}`)
	live := object(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: ns},
spec: {replicas: 2, template: {spec: {containers: [{name: web, image: "nginx:1.25"}]}}}}`)
	for overlay, want := range map[string]string{
		`#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@ n = data.values.new.spec.template.spec.containers[0].image
#@overlay/match by=overlay.all
---
spec:
  template:
    spec:
      containers:
      #@overlay/match by="name"
      - name: web
        image: #@ n if len(n) % 3 else data.values.existing.spec.template.spec.containers[0].image
`: "new spec.template.spec.containers[name=web].image",
		`#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
spec:
  replicas: #@ data.values.existing.spec.replicas
`: "",
	} {
		_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(nil)
		if err != nil {
			t.Fatal(err)
		}
		var first RuleUnjudged
		for i := range 20 {
			u, ok, err := unjudgedRead(overlay, desired, live, conf.RebaseMods())
			if err != nil {
				t.Fatal(err)
			}
			if ok != (want != "") || u.Path != want {
				t.Fatalf("run %d: not judged %v, reading %q; want %q", i, ok, u.Path, want)
			}
			if i == 0 {
				first = u
			} else if !reflect.DeepEqual(u, first) {
				t.Fatalf("run %d: %+v, run 0: %+v", i, u, first)
			}
		}
	}
}
