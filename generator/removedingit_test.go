package generator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// generate given a pull request's manifests that drop a value kapp last applied (web-nodeport's
// type: NodePort, web-lb's externalTrafficPolicy: Local, both in kapp.k14s.io/original) writes
// rules that let the removals through: kapp's own rebase with them applies neither value, and its
// verification passes (newcomer6 N6-2). Old code: the kind's copy of spec.type and
// spec.externalTrafficPolicy from [new, existing] (the other Services need them) put both back,
// and generate refused its own rules as hiding the removals, telling the user to regenerate.
//
// check of the rules generated from the unchanged manifests lets the pull request through too.
func TestGenerateLetsARemovalMadeInGitThrough(t *testing.T) {
	in := fixture("services")
	before, _ := generatedRules(t, in)
	removed := map[string]string{"web-nodeport": "type", "web-lb": "externalTrafficPolicy"}
	in.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool {
		if f, ok := removed[u.GetName()]; ok {
			unstructured.RemoveNestedField(u.Object, "spec", f)
		}
		return true
	})}
	ch, err := generator.Check(in, []string{before})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Hidden) > 0 || len(ch.Residual) > 0 {
		t.Errorf("check of the rules generated before the pull request: hidden %v, residual %v", ch.Hidden, ch.Residual)
	}
	pending := map[string]bool{}
	for _, r := range ch.Pending {
		pending[r.Resource.Name+" "+r.Finding.Path.String()] = true
	}
	for name, f := range removed {
		if !pending[name+" spec."+f] {
			t.Errorf("check does not report the removal of %s spec.%s pending; pending %v", name, f, pending)
		}
	}
	rules, g := generatedRules(t, in)
	if v := g.Verification; !v.OK() {
		t.Fatalf("verification failed: %s; hidden %v", v.Summary(), v.Hidden)
	}
	desired, live := objectsOf(t, in.Desired[0]), objectsOf(t, in.Live[0])
	for name, f := range removed {
		d := namedObject(t, desired, name)
		d.SetNamespace(in.Namespace)
		got := rebasedWith(t, rules, d, namedObject(t, live, name))
		if v, ok, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", f); ok {
			t.Errorf("kapp applies %s spec.%s: %v, which Git removed", name, f, v)
		}
	}
}
