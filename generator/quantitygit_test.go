package generator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// TestQuantityChangedInGitIsPending (newcomer8 N8-3): the captured quantities fixture, whose
// kapp.k14s.io/original holds cpu "0.5" and memory 1024Mi where the server stores 500m and 1Gi.
// A pull request declaring other quantities is a change made in Git (pending), not drift; the
// live value edited by hand to another quantity stays drift.
func TestQuantityChangedInGitIsPending(t *testing.T) {
	const requests = "spec.template.spec.containers[name=worker].resources.requests."
	in := fixture("quantities")
	before, _ := generatedRules(t, in)
	setRequests := func(file string, cpu, memory string) string {
		return editedFixture(t, file, func(u *unstructured.Unstructured) bool {
			if u.GetKind() != "Deployment" {
				return true
			}
			cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
			for _, c := range cs {
				if c := c.(map[string]any); c["name"] == "worker" {
					r := c["resources"].(map[string]any)["requests"].(map[string]any)
					r["cpu"], r["memory"] = cpu, memory
				}
			}
			_ = unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers")
			return true
		})
	}
	kinds := func(in generator.Inputs) map[string]string {
		ch, err := generator.Check(in, []string{before})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range ch.Pending {
			got[r.Finding.Path.String()] = "pending"
		}
		for _, r := range ch.Drift {
			got[r.Finding.Path.String()] = "drift"
		}
		return got
	}
	pr := in
	pr.Desired = []string{setRequests(in.Desired[0], "750m", "1536Mi")}
	got := kinds(pr)
	for _, f := range []string{"cpu", "memory"} {
		if got[requests+f] != "pending" {
			t.Errorf("Git changed requests.%s: %q, want pending (%v)", f, got[requests+f], got)
		}
	}
	edited := in
	edited.Live = []string{setRequests(in.Live[0], "600m", "1Gi")}
	if got := kinds(edited); got[requests+"cpu"] != "drift" {
		t.Errorf("requests.cpu edited on the cluster: %q, want drift (%v)", got[requests+"cpu"], got)
	}
}
