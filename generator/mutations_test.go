package generator

import (
	"fmt"
	"testing"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// The mutation check picks the rules a resource gets with kapp's own matcher code (issue 10):
// a matcher reading the object is decided on the declared object, as kapp decides it. The
// expectations follow kapp's emptyFieldMatcher (resources/matcher_empty_field.go): a declared
// scalar is never empty. The hand-written matcher this replaced took every emptyFieldMatcher as
// matching, so a rule "only where the manifest declares maxReplicas" (notMatcher of it) was never
// mutated. No manager but the applier owns maxReplicas, so the change the rule hides is hidden:
// the rule's sources do not make a field a controller's, the classification does (one definition
// for generated and hand-written rules).
func TestMutationCheckMatchesAsKappDoes(t *testing.T) {
	a, err := Analyze(Inputs{Desired: []string{"../fixtures/hpa-replicas/desired.yaml"}, Live: []string{"../fixtures/hpa-replicas/live.yaml"}, Namespace: "hpa-replicas"})
	if err != nil {
		t.Fatal(err)
	}
	hpa := synth.Matcher{APIVersionKind: &synth.APIVersionKind{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"}}
	empty := synth.Matcher{EmptyField: &synth.EmptyField{Path: synth.Keys("spec", "maxReplicas")}}
	for _, tc := range []struct {
		name    string
		matcher synth.Matcher
		run     int
		hidden  string
	}{
		{"declared (not empty)", synth.Matcher{And: &synth.Matchers{Matchers: []synth.Matcher{hpa, {Not: &synth.Not{Matcher: empty}}}}},
			1, "[autoscaling/HorizontalPodAutoscaler hpa-replicas/web spec.maxReplicas]"},
		{"empty", synth.Matcher{And: &synth.Matchers{Matchers: []synth.Matcher{hpa, empty}}}, 0, "[]"},
	} {
		rules := []synth.Rule{{Sources: synth.ControllerWins(), Paths: [][]string{{"spec", "maxReplicas"}}, Matchers: []synth.Matcher{tc.matcher}}}
		v := mutationsUnder(t, a, rules)
		if v.MutationsRun != tc.run || fmt.Sprint(v.Hidden) != tc.hidden || len(v.Masked) != 0 {
			t.Errorf("%s: %d mutations, masked %v, hidden %v; want %d, hidden %s", tc.name, v.MutationsRun, v.Masked, v.Hidden, tc.run, tc.hidden)
		}
	}
}

// A ytt rule holding several rules (synth.Rule.Also: one ytt evaluation per resource) is checked
// per rule: a change hidden by the part that lets the cluster win is handed to a controller
// (masked); the part where the manifest wins keeps the changed value in the object kapp applies,
// so kapp's engine is not asked about it (one mutation judged). Judged by the head rule's sources
// alone, the replicas change would have been reported as hidden.
func TestMutationCheckPerRuleOfOneYTTRule(t *testing.T) {
	a, err := Analyze(Inputs{Desired: []string{"../fixtures/hpa-replicas/desired.yaml"}, Live: []string{"../fixtures/hpa-replicas/live.yaml"}, Namespace: "hpa-replicas"})
	if err != nil {
		t.Fatal(err)
	}
	web := []synth.Matcher{{KindNamespaceName: &synth.KindNamespaceName{Kind: "Deployment", Namespace: "hpa-replicas", Name: "web"}}}
	label := fielddiff.FromFields([]string{"spec", "template", "metadata", "labels", "app.kubernetes.io/name"})
	replicas := fielddiff.FromFields([]string{"spec", "replicas"})
	rules := []synth.Rule{{Sources: synth.UserWins(), Keyed: []fielddiff.Path{label}, Matchers: web,
		Also: []synth.Rule{{Sources: synth.ControllerWins(), Keyed: []fielddiff.Path{replicas}, Matchers: web}}}}
	// many times: the verdict must not depend on the values drawn (a draw of the live replicas,
	// 1 in 9, told nothing)
	for range 20 {
		v := mutationsUnder(t, a, rules)
		if want := "[apps/Deployment hpa-replicas/web spec.replicas]"; v.MutationsRun != 1 || fmt.Sprint(v.Masked) != want || len(v.Hidden) != 0 {
			t.Fatalf("%d mutations, masked %v, hidden %v; want 1, masked %s", v.MutationsRun, v.Masked, v.Hidden, want)
		}
	}
}

// mutationsUnder judges rules, written as generate writes them, with the verdict stage.
func mutationsUnder(t *testing.T, a *Analysis, rules []synth.Rule) *verdict.Verdict {
	t.Helper()
	typed, cfg, err := generatedConfig(rules)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verdict.Judge(verdict.Input{Report: a.Report, Set: a.Set, Configs: []load.Object{cfg}, Rules: verdict.Generated(typed, synth.YTTPaths(rules))})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// configOf is the kapp Config generate writes for rules, as kapp's engine reads it.
func configOf(t *testing.T, rules []synth.Rule) load.Object {
	t.Helper()
	_, cfg, err := generatedConfig(rules)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
