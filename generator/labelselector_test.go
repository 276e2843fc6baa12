package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// What kapp's label rules write is part of what kapp applies: the disable-default-label-scoping
// annotation added in Git to a Deployment kapp deployed, a custom labelScopingRules entry on an
// object kapp takes over, a custom ownershipLabelRules path into the selector each have kapp's
// deploy change the Deployment's immutable spec.selector, which the API server refuses (outside
// probe 10, P10-3: check said nothing of the selector, or called the change one kapp applies,
// exit 0). The oracle is kapp's own deploy diff (its Config read from the files, its
// LabeledResources.Prepare, its change set under both bases): wherever kapp's update changes
// spec.selector, check must fail on the selector; where it does not, it must not.
func TestKappLabelRulesChangingTheSelectorFailTheGate(t *testing.T) {
	const toSelector = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
%s:
- path: [spec, selector, matchLabels]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`
	rulesFile := func(key, path string) string {
		return writeFile(t, key+".yml", strings.Replace(strings.Replace(toSelector, "%s", key, 1), "[spec, selector, matchLabels]", path, 1))
	}
	selector := "[spec, selector, matchLabels]"
	disabled := fixtureEdited(t, "hpa-replicas", "Deployment", func(u *unstructured.Unstructured) {
		ann := u.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[kappconv.DisableDefaultLabelScoping] = ""
		u.SetAnnotations(ann)
	})
	for _, tc := range []struct {
		name  string
		in    generator.Inputs
		rules []string
		fails bool
	}{
		{"kapp-deployed, as captured", fixture("hpa-replicas"), nil, false},
		{"kapp-deployed, default scoping disabled in Git", disabled, nil, true},
		{"kapp-deployed, ownershipLabelRules into the selector", fixture("hpa-replicas"), []string{rulesFile("ownershipLabelRules", selector)}, true},
		{"kapp-deployed, ownershipLabelRules into the nodeSelector", fixture("hpa-replicas"), []string{rulesFile("ownershipLabelRules", "[spec, template, spec, nodeSelector]")}, false},
		{"taken over, as captured", fixture("adoption-view"), nil, false},
		{"taken over, labelScopingRules into the selector", fixture("adoption-view"), []string{rulesFile("labelScopingRules", selector)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kappChangesSelector(t, tc.in, tc.rules); got != tc.fails {
				t.Fatalf("kapp's deploy changes the selector: %v, the case says %v", got, tc.fails)
			}
			c, err := generator.Check(tc.in, tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			var failing []string
			for _, f := range c.Findings(verdict.Gate{}) {
				// a Deployment's (a Service's selector, kapp's label scoping writes on takeover, is
				// mutable: an adoption change)
				if f.Resource.Kind == "Deployment" && strings.HasPrefix(f.Path, "spec.selector") {
					if !f.Fails || f.Kind != verdict.KindImmutable && f.Kind != verdict.KindAdoption || !strings.Contains(f.Evidence, "immutable") {
						t.Errorf("the selector change does not fail the gate as kapp's deploy does: %s %s: %s", f.Kind, f.Path, f.Evidence)
					}
					failing = append(failing, f.Resource.String()+" "+f.Path)
				}
			}
			if (len(failing) > 0) != tc.fails {
				t.Errorf("check's findings on the selector: %v; kapp's deploy fails on it: %v", failing, tc.fails)
			}
		})
	}
}

// kappChangesSelector reports whether kapp's deploy of in's manifests with the rule files
// updates a Deployment's spec.selector, under either base.
func kappChangesSelector(t *testing.T, in generator.Inputs, ruleFiles []string) bool {
	t.Helper()
	return kapptest.MakesEither(t, in.Desired, in.Live[0], in.Namespace, ruleFiles, kapptest.Updates("Deployment", func(obj map[string]any) any {
		return obj["spec"].(map[string]any)["selector"]
	}))
}
