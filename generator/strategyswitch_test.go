package generator_test

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// A pull request switching the update strategy of a captured workload whose manifest declared
// none (the live rollingUpdate is the server's default for kapp's last apply): the API server's
// defaulting sets rollingUpdate only for the RollingUpdate type, and apps validation refuses it
// beside Recreate or OnDelete (ValidateDeploymentStrategy, ValidateStatefulSetUpdateStrategy,
// ValidateDaemonSetUpdateStrategy). The live rollingUpdate is part of the pending change, which
// this deploy removes, not a residual ghost added during admission, and generate writes no copy
// of it, which kapp would apply beside the new type (newcomer7 N7-1).
func TestUpdateStrategySwitchedInGitRemovesRollingUpdate(t *testing.T) {
	for _, c := range []struct {
		fixture, kind string
		field         string
		typ           string
	}{
		{"hpa-replicas", "Deployment", "strategy", "Recreate"},
		{"daemonset", "DaemonSet", "updateStrategy", "OnDelete"},
		{"hpa-statefulset", "StatefulSet", "updateStrategy", "OnDelete"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			in := fixtureEdited(t, c.fixture, c.kind, func(u *unstructured.Unstructured) {
				if _, declared, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", c.field); declared {
					t.Fatalf("the fixture's manifest declares spec.%s: the test needs it defaulted", c.field)
				}
				if err := unstructured.SetNestedField(u.Object, map[string]any{"type": c.typ}, "spec", c.field); err != nil {
					t.Fatal(err)
				}
			})
			g, err := generator.Generate(in, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			path := "spec." + c.field + ".rollingUpdate"
			found := false
			for _, r := range g.Report.Resources {
				for _, f := range r.Findings {
					if r.ID.Kind == c.kind && f.Path.String() == path {
						found = true
						if f.Class != classify.Pending {
							t.Errorf("%s: want pending (this deploy removes it), got %s: %s", path, f.Class, f.Evidence)
						}
					}
				}
			}
			if !found {
				t.Fatalf("no finding at %s", path)
			}
			var b bytes.Buffer
			if err := emit.WriteRules(&b, g.Rules, emit.Header{}); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(b.String(), "\n") {
				if !strings.HasPrefix(line, "#") && (strings.Contains(line, "rollingUpdate") || strings.Contains(line, c.field)) {
					t.Errorf("want no rule writing spec.%s beside type %s, which the API server refuses; got %q", c.field, c.typ, line)
				}
			}
			v := g.Verification
			if len(v.Residual)+len(v.Unknown)+len(v.Hidden) != 0 {
				t.Errorf("want only pending changes, got residual %v, unknown %v, hidden %v", v.Residual, v.Unknown, v.Hidden)
			}
		})
	}
}
