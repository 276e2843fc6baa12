package generator_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldgraph "carvel.dev/kapp/pkg/kapp/diffgraph"
	ctllog "carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
)

// A rules Config whose changeGroupBindings/changeRuleBindings make kapp's change graph fail (a
// cycle, an unknown change rule, an invalid change group name) makes every deploy changing the
// resources they bind fail before kapp applies anything; check reported it (deploy-fails) only on
// a deploy changing them, and lint said nothing (probe11 P11-4). lint names the binding the graph
// fails on, at its line. Oracles: kapp's own change graph over the manifest's objects, each
// upserted, under the rules file as kapp reads it, and the line of the binding in the file.
func TestLintNamesTheBindingKappsChangeGraphFailsOn(t *testing.T) {
	const head = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n"
	const groups = `changeGroupBindings:
- name: g/a
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
- name: g/b
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
`
	ruleBinding := func(rule, kind, apiVersion string) string {
		return fmt.Sprintf("- rules: [%q]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: %s, kind: %s}\n", rule, apiVersion, kind)
	}
	deployAfterB := ruleBinding("upsert after upserting g/b", "Deployment", "apps/v1")
	hpaAfterA := ruleBinding("upsert after upserting g/a", "HorizontalPodAutoscaler", "autoscaling/v2")
	for _, c := range []struct {
		name, rules, culprit string // culprit: the binding's first line ("" where kapp builds the graph)
	}{
		{"cycle", head + groups + "changeRuleBindings:\n" + deployAfterB + hpaAfterA, strings.SplitN(hpaAfterA, "\n", 2)[0]},
		{"ordered", head + groups + "changeRuleBindings:\n" + deployAfterB, ""},
		{"misspelt rule", head + groups + "changeRuleBindings:\n" + ruleBinding("upsert afterr upserting g/b", "Deployment", "apps/v1"), `- rules: ["upsert afterr upserting g/b"]`},
		{"bad group name", head + "changeGroupBindings:\n- name: bad group name!\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n", "- name: bad group name!"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture("hpa-replicas")
			rules := writeFile(t, "bind.yml", c.rules)
			bs, err := os.ReadFile(rules)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := ctlres.NewFileResource(ctlres.NewBytesSource(bs)).Resources()
			if err != nil {
				t.Fatal(err)
			}
			_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(rs)
			if err != nil {
				t.Fatal(err)
			}
			var changes []ctldgraph.ActualChange
			for _, o := range objects(t, in.Desired[0], in.Namespace) {
				changes = append(changes, upsert{ctlres.NewResourceUnstructured(*o, ctlres.ResourceType{})})
			}
			_, kerr := ctldgraph.NewChangeGraph(changes, conf.ChangeGroupBindings(), conf.ChangeRuleBindings(), ctllog.NewNoopLogger())
			if (kerr != nil) != (c.culprit != "") {
				t.Fatalf("oracle: kapp's change graph: %v, the case expects it to fail: %t", kerr, c.culprit != "")
			}
			line := 0
			for i, l := range strings.Split(c.rules, "\n") {
				if c.culprit != "" && l == c.culprit {
					line = i + 1
				}
			}
			got, _, err := generator.Lint(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			var graph []lint.Finding
			for _, f := range got {
				if strings.Contains(f.Message, "Bindings[") {
					graph = append(graph, f)
				}
			}
			if kerr == nil {
				if len(graph) > 0 {
					t.Errorf("kapp builds the graph, lint says %v", graph)
				}
				return
			}
			if len(graph) != 1 || graph[0].Severity != lint.Error || graph[0].File != rules || graph[0].Line != line || !strings.Contains(graph[0].Message, kerr.Error()) {
				t.Errorf("want one error at %s:%d with kapp's %q, got %+v", rules, line, kerr, graph)
			}
		})
	}
}
