package verdict

import (
	"testing"
	"time"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
)

// TestMutationBudgetSkipsGeneratedRules (issue 28): the mutation check does not render a rule
// generate wrote in this run within the ytt budget for each changed manifest: its program is
// synth's. Only rules with paths (Rule.hint) were skipped, so the rule folding a Secret's
// stringData into data (no paths: every declared value is changed) was rendered once per changed
// value, and the command renders in a child process of its own each time: on the fixture mix at
// 1,000 pairs, generate's mutation check took 7 minutes of wall time for 20 s of CPU. Here the
// generated rule would render without end: rendering it would take the budget's minute and fail.
func TestMutationBudgetSkipsGeneratedRules(t *testing.T) {
	var cfgObj map[string]any
	if err := yaml.Unmarshal([]byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ for i in range(1000000000):
        #@   for j in range(1000000000):
        #@   end
        #@ end
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: Secret, namespace: ns, name: s}
`), &cfgObj); err != nil {
		t.Fatal(err)
	}
	cfg, err := verify.ConfigOf(ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: cfgObj}, ctlres.ResourceType{}))
	if err != nil {
		t.Fatal(err)
	}
	rules := Generated(cfg, [][]fielddiff.Path{nil})
	if len(rules) != 1 || rules[0].ytt == nil || rules[0].hint != nil {
		t.Fatalf("rules %+v: want the generated ytt rule, without paths", rules)
	}
	doc, err := load.NewDoc(load.Object{Unstructured: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "ns"}, "stringData": map[string]any{"k": "v"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := classify.Resource{Pair: pair.Pair{ID: pair.Identity{Kind: "Secret", Namespace: "ns", Name: "s"}, Desired: doc, Live: doc}}
	probes := []mutation{{r: r, path: fielddiff.FromFields([]string{"stringData", "k"}), value: "w", what: "stringData.k"}}
	done := make(chan error, 1)
	go func() { done <- mutatedWithinBudget(rules, probes) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the generated rule was rendered within the budget: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the generated rule is being rendered within the budget (not done after 20 s)")
	}
}
