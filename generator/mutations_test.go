package generator

import (
	"fmt"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

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
// for generated and hand-written rules). Each rule copies from the live object, so the declared
// maxReplicas is also removed (issue 23: a scalar at a copy's path): the rule acting only where
// the field is empty puts the live value back once Git removes it, and no default of the server
// gives it back (maxReplicas has none): hidden too.
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
			2, "[autoscaling/HorizontalPodAutoscaler hpa-replicas/web spec.maxReplicas]"},
		{"empty", synth.Matcher{And: &synth.Matchers{Matchers: []synth.Matcher{hpa, empty}}}, 1, "[autoscaling/HorizontalPodAutoscaler hpa-replicas/web spec.maxReplicas]"},
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

// A generated ytt rule's mutation check changes the values the rule rewrites (synth.YTTPaths),
// whatever parts it holds: a rule holding only a rewrite (a quantity the server stores
// canonicalised) had every value the Deployment declares changed, each rebased with kapp and
// rendered within the ytt budget; a keyed rule holding a rewrite beside (Also) never had the
// rewrite's value changed. The values are changed together, in one manifest kapp rebases (the
// program reads each at its own path: TestMutationCheckBatchesGeneratedYTTValues); the unchanged one,
// for the annotations a ytt rule may write, is not rebased again: the verification's diff of the
// same pair with the same rules already found none in the object kapp applies. The rewrite acts
// only while the object holds its From, so the changed value stays in the object kapp applies:
// nothing hidden, and nothing left for kapp's engine to judge (MutationsRun).
func TestMutationCheckOfARewriteRule(t *testing.T) {
	a, err := Analyze(Inputs{Desired: []string{"../fixtures/quantities/desired.yaml"}, Live: []string{"../fixtures/quantities/live.yaml"}, Namespace: "quantities"})
	if err != nil {
		t.Fatal(err)
	}
	var cpu, label fielddiff.Path
	for _, r := range a.Report.Resources {
		if r.ID.Kind != "Deployment" {
			continue
		}
		desired, _, err := r.Objects()
		if err != nil {
			t.Fatal(err)
		}
		zero := 0
		byIndex := append(append(fielddiff.FromFields([]string{"spec", "template", "spec", "containers"}), fieldpath.PathElement{Index: &zero}),
			fielddiff.FromFields([]string{"resources", "limits", "cpu"})...)
		cpu = fielddiff.ByKey(desired.Unstructured, byIndex)
		label = fielddiff.FromFields([]string{"spec", "template", "metadata", "labels", "app.kubernetes.io/name"})
	}
	if got := cpu.String(); got != "spec.template.spec.containers[name=worker].resources.limits.cpu" {
		t.Fatalf("path %s", got)
	}
	worker := []synth.Matcher{{KindNamespaceName: &synth.KindNamespaceName{Kind: "Deployment", Namespace: "quantities", Name: "worker"}}}
	rewrite := synth.Rule{Sources: synth.ControllerWins(), Rewrites: []synth.Rewrite{{Path: cpu, From: "1000m", To: "1"}}, Matchers: worker}
	for _, tc := range []struct {
		name   string
		rules  []synth.Rule
		probes int
	}{
		{"rewrite alone", []synth.Rule{rewrite}, 1},
		{"keyed with a rewrite", []synth.Rule{{Sources: synth.UserWins(), Keyed: []fielddiff.Path{label}, Matchers: worker, Also: []synth.Rule{rewrite}}}, 1},
	} {
		v := mutationsUnder(t, a, tc.rules)
		if v.MutationProbes != tc.probes || v.MutationsRun != 0 || len(v.Hidden) != 0 || len(v.Masked) != 0 {
			t.Errorf("%s: %d changed manifests, %d judged by kapp's engine, hidden %v, masked %v; want %d, 0, none hidden", tc.name, v.MutationProbes, v.MutationsRun, v.Hidden, v.Masked, tc.probes)
		}
	}
}

// TestMutationCheckBatchesGeneratedYTTValues (issue 28): the values a generated ytt rule rewrites
// are changed together, one manifest kapp rebases for all of a resource's values (the rule's
// program reads each value at its own path), not one each: the changed manifests kapp is asked
// about do not grow with the values. Each value is still judged for itself: the rule's copies of
// the live value (the cluster winning) hide the changes at their paths, each reported, and its
// rewrites of a canonical quantity, acting only where exactly the manifest's old value stands,
// hide none. A merge key's change moves its item, so the copy at a volume's name is changed in a
// manifest of its own.
func TestMutationCheckBatchesGeneratedYTTValues(t *testing.T) {
	a, err := Analyze(Inputs{Desired: []string{"../fixtures/quantities/desired.yaml"}, Live: []string{"../fixtures/quantities/live.yaml"}, Namespace: "quantities"})
	if err != nil {
		t.Fatal(err)
	}
	container := func(fields ...string) fielddiff.Path {
		return append(append(fielddiff.FromFields([]string{"spec", "template", "spec", "containers"}), keyed("name", "worker")), fielddiff.FromFields(fields)...)
	}
	volume := func(name string, fields ...string) fielddiff.Path {
		return append(append(fielddiff.FromFields([]string{"spec", "template", "spec", "volumes"}), keyed("name", name)), fielddiff.FromFields(fields)...)
	}
	rewrites := []synth.Rewrite{ // the manifest's values, as the live object holds them
		{Path: container("resources", "limits", "cpu"), From: "1000m", To: "1"},
		{Path: container("resources", "limits", "memory"), From: "2048Mi", To: "2Gi"},
		{Path: container("resources", "requests", "cpu"), From: "0.5", To: "500m"},
		{Path: container("resources", "requests", "ephemeral-storage"), From: "1000M", To: "1G"},
		{Path: container("resources", "requests", "memory"), From: "1024Mi", To: "1Gi"},
		{Path: volume("scratch", "emptyDir", "sizeLimit"), From: "0.5Gi", To: "512Mi"},
	}
	copied := []fielddiff.Path{fielddiff.FromFields([]string{"spec", "replicas"}), container("image"), volume("cache", "emptyDir", "sizeLimit")}
	worker := []synth.Matcher{{KindNamespaceName: &synth.KindNamespaceName{Kind: "Deployment", Namespace: "quantities", Name: "worker"}}}
	var want []string
	for _, p := range copied {
		want = append(want, "apps/Deployment quantities/worker "+p.String())
	}
	probes := map[int]int{}
	for _, n := range []int{1, len(rewrites)} {
		rules := []synth.Rule{{Sources: synth.ControllerWins(), Keyed: copied, Rewrites: rewrites[:n], Matchers: worker}}
		v := mutationsUnder(t, a, rules)
		if got := fmt.Sprint(v.Hidden); got != fmt.Sprint(want) || len(v.Masked) != 0 || v.MutationsRun != len(copied) {
			t.Fatalf("%d rewrites: hidden %s, masked %v, %d judged by kapp's engine; want hidden %v, each judged", n, got, v.Masked, v.MutationsRun, want)
		}
		probes[n] = v.MutationProbes
	}
	t.Logf("changed manifests asked about (rewrites: manifests): %v", probes)
	if probes[len(rewrites)] != probes[1] {
		t.Errorf("changed manifests asked about (rewrites: manifests): %v; want as many for %d rewrites as for 1", probes, len(rewrites))
	}
	rules := []synth.Rule{{Sources: synth.ControllerWins(), Keyed: append(copied, volume("cache", "name")), Rewrites: rewrites, Matchers: worker}}
	v := mutationsUnder(t, a, rules)
	if got := v.MutationProbes; got != probes[1]+1 {
		t.Errorf("with a copy at a merge key: %d changed manifests asked about, want %d: the key changed in a manifest of its own", got, probes[1]+1)
	}
}

// keyed is a list item's path element by its merge key field.
func keyed(field, key string) fieldpath.PathElement {
	return fieldpath.PathElement{Key: &value.FieldList{{Name: field, Value: value.NewValueInterface(key)}}}
}
