package classify_test

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/scenario"
)

// The update validation run on the object kapp's update sends refuses nothing a real API server
// accepted: every object of every scenario captured on a real cluster (fixtures/ and
// fixtures/v1.35/: kapp deployed the manifest, the server stored the live object), kapp's object
// rebased onto the live one as kapp's deploy sends it, with no change made in Git and with the
// scenario's known one (realChange, which a later deploy applied in the capture's checks). False
// alarms are the risk of judging whole objects (P16-10): a refusal here fails the gate of a
// deploy that works.
func TestUpdateValidationAcceptsCaptures(t *testing.T) {
	// the known Git changes the API server refuses: a StatefulSet's volumeClaimTemplates are
	// immutable (rulesets/immutable.yaml lists them: check fails on it already); the capture
	// checks that the change stays visible, never applied it
	refusedChange := map[string]string{"nested-templates": "spec.volumeClaimTemplates: Invalid value: field is immutable"}
	judged := map[string]int{}
	start := time.Now()
	for _, dir := range []string{"../../fixtures", "../../fixtures/v1.35"} {
		all, err := scenario.LoadAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) < 18 {
			t.Fatalf("%s: want the captured scenarios, found %d", dir, len(all))
		}
		for _, s := range all {
			if s.ArgoCD() {
				continue // Argo CD applied these: not kapp's update
			}
			// what kapp's next deploy sends: the manifest rebased with kapp's built-in rules, the
			// package's Configs and the rules generate writes for the scenario (without them kapp's
			// update drops what admission added to a Pod, a Job's selector, and fails)
			a, err := generator.Analyze(generator.Inputs{Desired: []string{filepath.Join(s.Dir, "desired.yaml")}, Live: []string{filepath.Join(s.Dir, "live.yaml")}, Namespace: s.Namespace, Rulesets: s.Rulesets})
			if err != nil {
				t.Fatalf("%s: %v", s.Dir, err)
			}
			g, err := a.Synthesize(synth.Options{})
			if err != nil {
				t.Fatalf("%s: %v", s.Dir, err)
			}
			kapp, err := kappcover.New(append(slices.Clone(g.Set.Configs), load.Object{Unstructured: g.Config}), false)
			if err != nil {
				t.Fatalf("%s: %v", s.Dir, err)
			}
			variants := [][]*unstructured.Unstructured{desiredOf(s)}
			if s.RealChange != nil {
				changed, err := s.DesiredWithRealChange()
				if err != nil {
					t.Fatal(err)
				}
				variants = append(variants, changed)
			}
			for i, desired := range variants {
				for j, d := range desired {
					live := s.Objects[j].Live
					if live == nil {
						continue
					}
					if d.GetNamespace() == "" {
						d.SetNamespace(live.GetNamespace())
					}
					sent, err := kapp.Rebased(d, live)
					if err != nil {
						t.Fatalf("%s %s: %v", s.Dir, s.Objects[j].Resource, err)
					}
					errs, ok := classify.UpdateErrors(sent.Object, live.Object)
					if !ok {
						continue
					}
					judged[d.GetKind()]++
					if want := refusedChange[s.Name]; i > 0 && want != "" && s.Objects[j].Resource == s.RealChange.Resource {
						if !slices.Equal(errs, []string{want}) {
							t.Errorf("%s %s: the Git change's refusal: %v, want [%s]", s.Dir, s.Objects[j].Resource, errs, want)
						}
						continue
					}
					if len(errs) > 0 {
						t.Errorf("%s %s (Git change %v): the update validation refuses what the API server accepted: %v", s.Dir, s.Objects[j].Resource, i > 0, errs)
					}
				}
			}
		}
	}
	t.Logf("%v", time.Since(start))
	kinds := slices.Sorted(maps.Keys(judged))
	t.Logf("judged: %v", judged)
	for _, k := range []string{"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "ConfigMap", "Secret", "PersistentVolumeClaim", "PersistentVolume", "ClusterRole", "HorizontalPodAutoscaler", "CustomResourceDefinition"} {
		if !slices.Contains(kinds, k) {
			t.Errorf("no %s judged: the captures hold one", k)
		}
	}
}

// desiredOf is a copy of s's desired objects.
func desiredOf(s *scenario.Scenario) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range s.Objects {
		out = append(out, o.Desired.DeepCopy())
	}
	return out
}
