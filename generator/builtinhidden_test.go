package generator_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
)

// TestChangesKappsDefaultConfigHidesAreNotPending (issue 23, probe13 P13-2): kapp v0.66.0's
// default Config copies metadata from the live object and puts back only labels and annotations,
// so finalizers and ownerReferences added in Git never reach the object kapp applies. check
// called them "pending change from Git (kapp applies it on deploy)" and exited 0; they are
// hidden, naming kapp's default Config. Oracle: kapp's
// deploy diff (kapptest.BothBases), both bases: the object it applies holds the live finalizers and
// ownerReferences (none).
func TestChangesKappsDefaultConfigHidesAreNotPending(t *testing.T) {
	manifest, err := os.ReadFile("../fixtures/hpa-replicas/desired.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const web = "kind: Deployment\nmetadata:\n"
	changed := strings.Replace(string(manifest), web, web+`  finalizers: [example.com/protect]
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: 11111111-2222-3333-4444-555555555555}
`, 1)
	if changed == string(manifest) {
		t.Fatal("the fixture's Deployment is not where the test adds metadata")
	}
	rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new]
  paths: [[type]]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Secret}}]
`)
	in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", changed)},
		Live: []string{"../fixtures/hpa-replicas/live.yaml"}, Namespace: "hpa-replicas"}
	applied := map[string]bool{}
	for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, []string{rules}) {
		if ch.NewResource() == nil || ch.NewResource().Kind() != "Deployment" {
			continue
		}
		obj := ch.NewResource().UnstructuredObject()["metadata"].(map[string]any)
		for _, f := range []string{"finalizers", "ownerReferences"} {
			live := ch.ExistingResource().UnstructuredObject()["metadata"].(map[string]any)[f]
			if !reflect.DeepEqual(obj[f], live) {
				applied[f] = true
			}
		}
	}
	if len(applied) != 0 {
		t.Fatalf("kapp applies %v: the oracle does not hold", applied)
	}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"metadata.finalizers", "metadata.ownerReferences"} {
		hidden := false
		for _, h := range c.Hidden {
			if h.Resource.String() == "apps/Deployment hpa-replicas/web" && h.Path == f && strings.Contains(h.Rule, "kapp's default Config") && strings.Contains(h.Rule, "[metadata]") {
				hidden = true
			}
		}
		if !hidden {
			t.Errorf("%s: not hidden by kapp's default Config's copy of [metadata]; hidden: %v", f, c.Hidden)
		}
	}
	for _, p := range c.Pending {
		if path := p.Finding.Path.String(); strings.HasPrefix(path, "metadata.finalizers") || strings.HasPrefix(path, "metadata.ownerReferences") {
			t.Errorf("%s %s: pending (kapp applies it), kapp keeps the live value", p.Resource, path)
		}
	}
}
