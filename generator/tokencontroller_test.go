package generator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// TestSecretsRemovedInGitIsPending (newcomer8 N8-1): Git removes the secret references of a
// captured ServiceAccount whose managedFields credit kapp alone with them. The legacy token
// controller (rulesets/filled.yaml) writes with Update, so managedFields would credit it had it
// listed one: the removal is a change made in Git, which the rules generated before the pull
// request let through, and the rules generated from it do not undo (kapp's own rebase of the
// pull request's object is the oracle).
func TestSecretsRemovedInGitIsPending(t *testing.T) {
	in := fixture("create-strategies")
	before, _ := generatedRules(t, in)
	in.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool {
		if u.GetKind() == "ServiceAccount" && u.GetName() == "deployer" {
			unstructured.RemoveNestedField(u.Object, "secrets")
		}
		return true
	})}
	ch, err := generator.Check(in, []string{before})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Residual) > 0 || len(ch.Hidden) > 0 {
		t.Errorf("check: residual %v, hidden %v; want the removal pending", ch.Residual, ch.Hidden)
	}
	pending := false
	for _, r := range ch.Pending {
		pending = pending || r.Resource.Name == "deployer" && r.Finding.Path.String() == "secrets"
	}
	if !pending {
		t.Errorf("check does not report the removal of deployer's secrets pending: %v", ch.Pending)
	}
	rules, _ := generatedRules(t, in)
	d := namedObject(t, objectsOf(t, in.Desired[0]), "deployer")
	d.SetNamespace(in.Namespace)
	got := rebasedWith(t, rules, d, namedObject(t, objectsOf(t, in.Live[0]), "deployer"))
	if v, ok, _ := unstructured.NestedFieldNoCopy(got.Object, "secrets"); ok {
		t.Errorf("kapp applies secrets %v, which Git removed", v)
	}
}
