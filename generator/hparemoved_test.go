package generator_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// A scale-subresource owner of spec.replicas is the HPA controller's only while an autoscaler
// targets the Deployment: with the HPA gone from the package and from the cluster, managedFields
// still credit kube-controller-manager, but nothing writes the value again and kapp's deploy puts
// the manifest's back (newcomer24 finding 14: generate kept writing the replicas rule). With the
// HPA still live (kapp deletes it on this deploy) the entry is still the controller's.
func TestScaleOwnerWithoutAutoscalerIsNoController(t *testing.T) {
	in := fixture("hpa-replicas")
	deploymentOnly := func(u *unstructured.Unstructured) bool { return u.GetKind() == "Deployment" }
	desired := editedFixture(t, in.Desired[0], deploymentOnly)
	for _, tc := range []struct {
		name  string
		live  string
		class classify.Class
		ruled bool
	}{
		{"no autoscaler anywhere", editedFixture(t, in.Live[0], deploymentOnly), classify.Drift, false},
		{"the HPA live, deleted on deploy", in.Live[0], classify.Controller, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := generator.Generate(generator.Inputs{Desired: []string{desired}, Live: []string{tc.live}, Namespace: in.Namespace}, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got *classify.Finding
			for _, r := range g.Report.Resources {
				for i, f := range r.Findings {
					if r.ID.Kind == "Deployment" && f.Path.String() == "spec.replicas" {
						got = &r.Findings[i]
					}
				}
			}
			if got == nil || got.Class != tc.class {
				t.Fatalf("spec.replicas: got %+v, want class %s", got, tc.class)
			}
			ruled := slices.ContainsFunc(g.Rules, func(r synth.Rule) bool {
				return slices.ContainsFunc(r.Paths, func(p []string) bool { return slices.Equal(p, []string{"spec", "replicas"}) })
			})
			if ruled != tc.ruled {
				t.Errorf("a rule for spec.replicas: %v, want %v (rules %+v)", ruled, tc.ruled, g.Rules)
			}
		})
	}
}

// A pull request deleting an HPA leaves the rule copying its target's spec.replicas from the
// live object in force: kapp keeps the count the autoscaler last set, not the manifest's, until
// the rules are regenerated. check's lint names that rule, at its line, with both counts
// (newcomer7 N7-8: it named only the HPA's own matchers, which match nothing any more). The
// counts are read from the fixture: 2 live (the HPA's minReplicas), 1 declared.
func TestRuleForADeletedAutoscalerIsNamed(t *testing.T) {
	in := fixture("hpa-statefulset")
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := emit.WriteRules(&b, g.Rules, emit.Header{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	rules := writeFile(t, "rules.yml", b.String())
	lines := strings.Split(b.String(), "\n")
	at := slices.Index(lines, "  - [spec, replicas]") + 1
	rule := strings.Count(strings.Join(lines[:at], "\n"), "\n- type: ") - 1
	if at == 0 || rule < 0 {
		t.Fatalf("the rules generated for fixtures/hpa-statefulset copy no spec.replicas:\n%s", b.String())
	}
	in.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool { return u.GetKind() != "HorizontalPodAutoscaler" })}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range c.Lint {
		if f.Rule == rule && f.Line == at && strings.Contains(f.Message, "apps/StatefulSet hpa-statefulset/db, whose autoscaler HorizontalPodAutoscaler hpa-statefulset/db this deploy deletes: kapp keeps 2 replicas, not the manifest's 1") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning at rules.yml:%d rebaseRules[%d] naming the deleted HPA and both counts: %+v", at, rule, c.Lint)
	}
}
