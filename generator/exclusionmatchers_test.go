package generator_test

import (
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/lint"
)

// TestExclusionRuleHidesInEveryResource: kapp v0.66.0 removes the path of a
// diffAgainstExistingFieldExclusionRules rule from every resource, whatever its resourceMatchers
// (it never asks them). The mutation check took the matchers at their word: a rule excluding
// [spec, replicas] on a kind no manifest holds passed check, exit 0, while kapp's deploy keeps
// every Deployment's replicas changed in Git. The oracle is kapp's deploy of the replicas bumped
// in Git (kapptest.Changes): hidden exactly where kapp then keeps the Deployment under the rule and
// updates it without.
func TestExclusionRuleHidesInEveryResource(t *testing.T) {
	v1, bumped, in := versionedRefInputs(t, "versioned-reference", "versioned-ref", "replicas: 1", "replicas: 3")
	const config = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n"
	rules := writeFile(t, "exclude.yml", config+"diffAgainstExistingFieldExclusionRules:\n- path: [spec, replicas]\n  resourceMatchers:\n"+
		"  - apiVersionKindMatcher: {apiVersion: example.com/v1, kind: Nothing}\n")
	updates := func(rules string) bool {
		deployed := in(bumped)
		return kapptest.MakesBoth(t, deployed.Desired, deployed.Live[0], deployed.Namespace, []string{rules}, func(ch ctldiff.Change) bool {
			return ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == "Deployment"
		})
	}
	if !updates(writeFile(t, "none.yml", config)) || updates(rules) {
		t.Fatal("kapp's deploy of the bump does not update the Deployment without the rule, or does under it")
	}
	if hidden, all := checkHides(t, in(v1), rules, "apps/Deployment versioned-ref/web spec.replicas"); !hidden {
		t.Errorf("spec.replicas not hidden, though kapp's deploy keeps its change from Git under the rule; hidden %v", all)
	}
	findings, _, err := generator.Lint(in(v1), []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	hides, warned := false, false
	for _, f := range findings {
		hides = hides || f.Severity == lint.Error && f.Line == 4 && strings.Contains(f.Message, "apps/Deployment versioned-ref/web spec.replicas")
		warned = warned || f.Severity == lint.Warning && f.Line == 5 && strings.Contains(f.Message, "kapp never reads an exclusion rule's resourceMatchers: it excludes [spec, replicas] from every resource")
	}
	if !hides || !warned {
		t.Errorf("lint does not find the rule hiding spec.replicas (%v), or does not warn that kapp ignores its resourceMatchers (%v): %+v", hides, warned, findings)
	}
}
