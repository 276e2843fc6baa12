package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// TestRemovalJudgedAgainstEveryLive: the mutation check's removals are asked with the live
// object as captured and as it may be when kapp deploys, as its changed values are; a removal is
// hidden where the rules put it back against either. Alone: a ytt rule putting back the live
// container resources only while the live object is the captured one (its resourceVersion)
// hides Git removing them as long as nothing writes the object; its removal was asked only
// against the object moved on. Together (rules matched by identity): a copy of the container
// resources from the live object, which the capture lacks (and a rule whose matcher reads them,
// so the live object decides it), puts back what Git removes once the live object holds them
// (after this deploy); joint removals were asked only against the capture.
func TestRemovalJudgedAgainstEveryLive(t *testing.T) {
	const resources = "spec.template.spec.containers[name=web].resources"
	withoutResources := editedKind(t, "../fixtures/hpa-replicas/live.yaml", "Deployment", func(u *unstructured.Unstructured) {
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		delete(containers[0].(map[string]any), "resources")
		if err := unstructured.SetNestedSlice(u.Object, containers, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
	})
	for _, c := range []struct {
		name, live, rules string
	}{
		{"alone, as captured", "../fixtures/hpa-replicas/live.yaml", webYTT(`
if ex != None and ex["metadata"]["resourceVersion"] == "1052":
  obj["spec"]["template"]["spec"]["containers"][0]["resources"] = ex["spec"]["template"]["spec"]["containers"][0]["resources"]
end
`)},
		{"together, once the live object holds them", withoutResources, `- type: copy
  sources: [existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, resources]
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}
- type: remove
  paths:
  - [spec, template, metadata, annotations, example.com/unused]
  resourceMatchers:
  - andMatcher:
      matchers:
      - kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}
      - notMatcher: {matcher: {emptyFieldMatcher: {path: [spec, template, spec, containers, {allIndexes: true}, resources]}}}
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture("hpa-replicas")
			in.Live = []string{c.live}
			rules := writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+c.rules)
			ch, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			removed := removalsHidden(ch)
			if !strings.Contains(strings.Join(removed, "\n"), "web "+resources) {
				t.Errorf("removals hidden %q: want web %s", removed, resources)
			}
		})
	}
}
