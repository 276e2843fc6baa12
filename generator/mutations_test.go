package generator

import (
	"bytes"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// The mutation check picks the rules a resource gets with kapp's own matcher code (issue 10):
// a matcher reading the object is decided on the declared object, as kapp decides it. The
// expectations follow kapp's emptyFieldMatcher (resources/matcher_empty_field.go): a declared
// scalar is never empty. The hand-written matcher this replaced took every emptyFieldMatcher as
// matching, so a rule "only where the manifest declares maxReplicas" (notMatcher of it) was never
// mutated. The rule lets the cluster win, so generate reads the change it hides as handed to a
// controller (masked), not as hidden.
func TestMutationCheckMatchesAsKappDoes(t *testing.T) {
	a, err := Analyze(Inputs{Desired: []string{"../fixtures/hpa-replicas/desired.yaml"}, Live: []string{"../fixtures/hpa-replicas/live.yaml"}, Namespace: "hpa-replicas"})
	if err != nil {
		t.Fatal(err)
	}
	hpa := synth.Matcher{APIVersionKind: &synth.APIVersionKind{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"}}
	empty := synth.Matcher{EmptyField: &synth.EmptyField{Path: []string{"spec", "maxReplicas"}}}
	for _, tc := range []struct {
		name    string
		matcher synth.Matcher
		run     int
		masked  string
	}{
		{"declared (not empty)", synth.Matcher{And: &synth.Matchers{Matchers: []synth.Matcher{hpa, {Not: &synth.Not{Matcher: empty}}}}},
			1, "[autoscaling/HorizontalPodAutoscaler hpa-replicas/web spec.maxReplicas]"},
		{"empty", synth.Matcher{And: &synth.Matchers{Matchers: []synth.Matcher{hpa, empty}}}, 0, "[]"},
	} {
		rules := []synth.Rule{{Sources: synth.ControllerWins(), Paths: [][]string{{"spec", "maxReplicas"}}, Matchers: []synth.Matcher{tc.matcher}}}
		var b bytes.Buffer
		if err := emit.WriteRules(&b, rules, emit.Header{}); err != nil {
			t.Fatal(err)
		}
		cfg, err := load.Bytes("rules", b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var v Verification
		if err := mutations(&v, a.Report, rules, []*unstructured.Unstructured{cfg[0].Unstructured}, nil, nil); err != nil {
			t.Fatal(err)
		}
		if v.MutationsRun != tc.run || fmt.Sprint(v.Masked) != tc.masked || len(v.Hidden) != 0 {
			t.Errorf("%s: %d mutations, masked %v, hidden %v; want %d, masked %s", tc.name, v.MutationsRun, v.Masked, v.Hidden, tc.run, tc.masked)
		}
	}
}
