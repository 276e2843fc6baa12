package generator_test

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
)

// A pull request pinning a container's image from nginx:latest to a tag: the live
// imagePullPolicy Always is the API server's default for the latest tag kapp last applied
// (k8s.io/kubernetes pkg/apis/core/v1/defaults.go SetDefaults_Container: Always for a latest or
// missing tag, IfNotPresent otherwise), so this deploy's update changes it to IfNotPresent: a
// pending change, not a field added during admission; and the rule generated before the PR, which
// copies the live policy, keeps Always on the deploy: check says the rule hides it (newcomer9 N9-4).
func TestPinnedLatestTagChangesTheDefaultedPullPolicy(t *testing.T) {
	rules, _ := generatedRules(t, fixture("image-pull-policy"))
	in := fixtureEdited(t, "image-pull-policy", "Deployment", func(u *unstructured.Unstructured) {
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		c := containers[0].(map[string]any)
		if c["name"] != "latest" || c["image"] != "nginx:latest" || c["imagePullPolicy"] != nil {
			t.Fatalf("the fixture's first container is %v, want latest with nginx:latest and no imagePullPolicy", c)
		}
		c["image"] = "nginx:1.27"
		if err := unstructured.SetNestedSlice(u.Object, containers, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
	})
	const path = "spec.template.spec.containers[name=latest].imagePullPolicy"
	rep, _, err := generator.Explain(in)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rep.Resources {
		for _, f := range r.Findings {
			if f.Path.String() == path {
				found = true
				if f.Class != classify.Pending {
					t.Errorf("explain: %s is %s (%s), want pending: the update defaults it anew", path, f.Class, f.Evidence)
				}
			}
		}
	}
	if !found {
		t.Fatalf("explain: no finding at %s", path)
	}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if got := hiddenPaths(c); !slices.Contains(got, path) {
		t.Errorf("check with the rules generated before the PR: hidden %v, want %s (the rule copies the live Always)", got, path)
	}
}
