package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// kapp's built-in ownership label rules write its labels into a StatefulSet's
// spec.volumeClaimTemplates too (kapp v0.66.0 config/default.go ownershipLabelRules, with
// allIndexes), a field the API server refuses to change (ValidateStatefulSetUpdate). A PR
// annotating the StatefulSet kapp.k14s.io/disable-default-ownership-label-rules has kapp remove
// them there, and a Config adding additionalLabels has it write one more there: kapp's update
// fails either way (outside probe 12, P12-2: the first passed check, exit 0; the second was
// called a residual ghost diff and drift). The oracle is kapp's own deploy diff: wherever kapp's
// update changes spec.volumeClaimTemplates, check must fail on it as an immutable field; where
// it does not, it must say nothing of it.
func TestKappLabelRulesChangingVolumeClaimTemplatesFailTheGate(t *testing.T) {
	disabled := fixtureEdited(t, "hpa-statefulset", "StatefulSet", func(u *unstructured.Unstructured) {
		ann := u.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann["kapp.k14s.io/disable-default-ownership-label-rules"] = ""
		u.SetAnnotations(ann)
	})
	captured, _ := generatedRules(t, fixture("hpa-statefulset")) // the rules in the repository before the PR
	additional := writeFile(t, "additional.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nadditionalLabels:\n  team: payments\n")
	for _, tc := range []struct {
		name  string
		in    generator.Inputs
		rules []string
		fails bool
	}{
		{"as captured", fixture("hpa-statefulset"), []string{captured}, false},
		{"default ownership label rules disabled in Git", disabled, []string{captured}, true},
		{"additionalLabels added in Git", fixture("hpa-statefulset"), []string{captured, additional}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kappChangesClaimTemplates(t, tc.in, tc.rules); got != tc.fails {
				t.Fatalf("kapp's deploy changes spec.volumeClaimTemplates: %v, the case says %v", got, tc.fails)
			}
			c, err := generator.Check(tc.in, tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			var failing []string
			for _, f := range c.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindResidual || f.Kind == verdict.KindDrift {
					t.Errorf("kapp's update is its label rules' change, not %s: %s %s", f.Kind, f.Resource, f.Path)
				}
				if strings.HasPrefix(f.Path, "spec.volumeClaimTemplates") {
					if !f.Fails || f.Kind != verdict.KindImmutable || !strings.Contains(f.Evidence, "spec.volumeClaimTemplates is immutable") {
						t.Errorf("the change does not fail the gate as kapp's deploy does: %s %s: %s", f.Kind, f.Path, f.Evidence)
					}
					failing = append(failing, f.Path)
				}
			}
			if (len(failing) > 0) != tc.fails {
				t.Errorf("check's findings on spec.volumeClaimTemplates: %v; kapp's deploy fails on it: %v", failing, tc.fails)
			}
		})
	}
}

// kappChangesClaimTemplates reports whether kapp's deploy of in's manifests with the rule files
// updates the labels of a StatefulSet's spec.volumeClaimTemplates, under either base.
func kappChangesClaimTemplates(t *testing.T, in generator.Inputs, ruleFiles []string) bool {
	t.Helper()
	return kapptest.MakesEither(t, in.Desired, in.Live[0], in.Namespace, ruleFiles, kapptest.Updates("StatefulSet", func(obj map[string]any) any {
		var labels []any
		for _, tpl := range obj["spec"].(map[string]any)["volumeClaimTemplates"].([]any) {
			labels = append(labels, tpl.(map[string]any)["metadata"].(map[string]any)["labels"])
		}
		return labels
	}))
}
