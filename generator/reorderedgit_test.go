package generator_test

import (
	"slices"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A pull request swapping a Deployment's first two containers: kapp diffs the objects' text,
// where the order is a difference, so its deploy updates the Deployment and applies the new
// order (the oracle: kapp v0.66.0's change set, under the rules generated before the PR). Git
// changed it since kapp's last apply (kapp.k14s.io/original holds the order the live object
// holds): a pending change from Git, which explain shows and check lets through. The field diff
// pairs containers by name, so there was no field: check took kapp's update for a residual ghost
// diff (exit 3), and explain showed nothing (newcomer9 N9-6). An order only the live object
// changed (the manifest keeping kapp's last apply's) is not Git's.
func TestContainersReorderedInGitArePending(t *testing.T) {
	const containers = "spec.template.spec.containers"
	swap := func(u *unstructured.Unstructured) {
		if u.GetKind() != "Deployment" {
			return
		}
		cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		if names := containerNames(cs); !slices.Equal(names[:2], []string{"latest", "tagged"}) {
			t.Fatalf("the fixture's containers are %v, want latest and tagged first", names)
		}
		cs[0], cs[1] = cs[1], cs[0]
		if err := unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
	}
	rules, _ := generatedRules(t, fixture("image-pull-policy"))
	pendingAt := func(in generator.Inputs) bool {
		rep, _, err := generator.Explain(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Resources {
			for _, f := range r.Findings {
				if r.ID.Kind == "Deployment" && f.Path.String() == containers && f.Class == classify.Pending {
					return true
				}
			}
		}
		return false
	}

	t.Run("in Git", func(t *testing.T) {
		in := fixtureEdited(t, "image-pull-policy", "Deployment", swap)
		applied := false
		for _, ch := range kapptest.Changes(t, in.Desired, in.Live[0], in.Namespace, []string{rules}, true) {
			if ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == "Deployment" {
				names := func(u map[string]any) []string {
					cs, _, _ := unstructured.NestedSlice(u, "spec", "template", "spec", "containers")
					return containerNames(cs)
				}
				applied = slices.Equal(names(ch.NewResource().UnstructuredObject())[:2], []string{"tagged", "latest"}) &&
					slices.Equal(names(ch.ExistingResource().UnstructuredObject())[:2], []string{"latest", "tagged"})
			}
		}
		if !applied {
			t.Fatal("oracle: kapp's deploy does not apply the new order of the containers")
		}
		if !pendingAt(in) {
			t.Errorf("explain: no pending change at %s", containers)
		}
		c, err := generator.Check(in, []string{rules})
		if err != nil {
			t.Fatal(err)
		}
		pending := false
		for _, f := range c.Findings(verdict.Gate{}) {
			if f.Fails {
				t.Errorf("check: %s %s %s fails: %s", f.Kind, f.Resource, f.Path, f.Evidence)
			}
			pending = pending || f.Kind == verdict.KindPending && f.Resource.Kind == "Deployment" && f.Path == containers
		}
		if !pending {
			t.Errorf("check: no pending change from Git at %s", containers)
		}
	})

	t.Run("on the cluster", func(t *testing.T) {
		in := fixture("image-pull-policy")
		in.Live = []string{editedKind(t, in.Live[0], "Deployment", swap)}
		if pendingAt(in) {
			t.Errorf("explain: the live object's order, which kapp's last apply does not hold, is called a change made in Git")
		}
	})
}

func containerNames(cs []any) []string {
	var out []string
	for _, c := range cs {
		name, _ := c.(map[string]any)["name"].(string)
		out = append(out, name)
	}
	return out
}
