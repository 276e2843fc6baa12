package compare

import (
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestSecretsRemovedIsTheApplierChange (newcomer8 N8-1): an update removing the secret
// references of the captured ServiceAccount, whose managedFields credit kapp alone with them,
// removes them as the applier's change; the legacy token controller (rulesets/filled.yaml),
// which managedFields would name had it listed them, is not its owner.
func TestSecretsRemovedIsTheApplierChange(t *testing.T) {
	data, err := os.ReadFile("../fixtures/create-strategies/live.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var live *unstructured.Unstructured
	for _, doc := range strings.Split(string(data), "\n---") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		if u.GetKind() == "ServiceAccount" && u.GetName() == "deployer" {
			live = u
		}
	}
	if live == nil {
		t.Fatal("no ServiceAccount deployer in the fixture")
	}
	desired := live.DeepCopy()
	for _, f := range []string{"managedFields", "uid", "resourceVersion", "creationTimestamp"} {
		unstructured.RemoveNestedField(desired.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(desired.Object, "secrets")
	c, err := New(WithUpdate())
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Compare(desired, live)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Fields {
		if f.Path == "secrets" && (f.Effect != Removed || f.Owner == "kube-controller-manager") {
			t.Errorf("secrets: %s, class %s, owner %s; want removed, not kube-controller-manager's: %s", f.Effect, f.Class, f.Owner, f.Evidence)
		}
	}
	if r.Verdict != Changes {
		t.Errorf("verdict %s, want Changes", r.Verdict)
	}
}
