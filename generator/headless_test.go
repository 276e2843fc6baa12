package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A pull request making the captured headless Service a normal one (clusterIP: None removed):
// Git declared None, kapp.k14s.io/original holds it, so the service IP allocator did not make it
// (explain called it calculated); and the removal never takes effect: kapp's built-in rule copies
// the live clusterIP into what it applies (kapp v0.66.0 default.go), and the API server keeps the
// allocated one in an update that has none (k8s.io/kubernetes v1.37.2
// pkg/registry/core/service/storage/storage.go patchAllocatedValues): the Service stays headless.
// check said nothing (newcomer7 N7-15).
func TestHeadlessServiceMadeNormalInGitIsNamed(t *testing.T) {
	in := fixture("hpa-statefulset")
	in.Desired = []string{editedFixture(t, "../fixtures/hpa-statefulset/desired.yaml", func(u *unstructured.Unstructured) bool {
		if u.GetKind() == "Service" {
			if ip, _, _ := unstructured.NestedString(u.Object, "spec", "clusterIP"); ip != "None" {
				t.Fatalf("the fixture's Service is not headless (clusterIP %q)", ip)
			}
			unstructured.RemoveNestedField(u.Object, "spec", "clusterIP")
		}
		return true
	})}
	// the oracle, kapp's side: the Service kapp's deploy applies still holds None (its built-in
	// rule copies the live clusterIP), under either base
	for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, nil) {
		if ch.NewResource() == nil || ch.NewResource().Kind() != "Service" {
			continue
		}
		if ip, _, _ := unstructured.NestedString(ch.NewResource().UnstructuredObject(), "spec", "clusterIP"); ip != "None" {
			t.Fatalf("oracle: kapp's deploy applies clusterIP %q, not the live None: the removal would take effect", ip)
		}
	}
	rep, _, err := generator.Explain(in)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rep.Resources {
		for _, f := range r.Findings {
			if r.ID.Kind == "Service" && f.Path.String() == "spec.clusterIP" {
				found = true
				if f.Class != classify.Pending || strings.Contains(f.Evidence, "allocator") {
					t.Errorf("explain: want a removal made in Git, got %s: %s", f.Class, f.Evidence)
				}
			}
		}
	}
	if !found {
		t.Fatal("explain: no finding at spec.clusterIP")
	}
	ch, err := generator.Check(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	found = false
	for _, f := range ch.Findings(verdict.Gate{}) {
		if f.Resource.Kind == "Service" && f.Path == "spec.clusterIP" {
			found = true
			if f.Kind != verdict.KindPending || f.Fails || !strings.Contains(f.Evidence, "the deploy does not change it") || !strings.Contains(f.Evidence, "recreate it") {
				t.Errorf("check: want a pending change the deploy does not make, a warning saying to recreate the Service; got %s (fails %v): %s", f.Kind, f.Fails, f.Evidence)
			}
		}
	}
	if !found {
		t.Error("check: nothing about spec.clusterIP")
	}
	// as kapp's own behaviour, no rule's: generate writes its rules, and warns
	_, g := generatedRules(t, in)
	if !g.Verification.OK() {
		t.Error("generate: verification failed on a removal no rule hides")
	}
	found = false
	for _, f := range g.Findings(verdict.Gate{}) {
		if f.Resource.Kind == "Service" && f.Path == "spec.clusterIP" {
			found = true
			if f.Fails {
				t.Errorf("generate: the removal fails (%s): %s", f.Kind, f.Evidence)
			}
		}
	}
	if !found {
		t.Error("generate: nothing about spec.clusterIP")
	}
}
