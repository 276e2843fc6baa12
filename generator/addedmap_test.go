package generator_test

import (
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
)

// Git adds the first annotation of a Deployment's pod template, under a hand-written copy of the
// template's annotations from the live object, which holds none (probe13 P13-8): kapp's copy
// finds nothing to copy and applies the annotation, and shows nothing else. check said so, and
// also called the Deployment a residual ghost diff ('+ annotations: {}' under the last-applied
// base, exit 3): its manifest with the change undone kept an empty annotations map.
func TestAnnotationAddedInANewMapIsNoResidual(t *testing.T) {
	base := fixture("hpa-replicas")
	rules, _ := generatedRules(t, base)
	in := base
	in.Desired = []string{editedFixture(t, base.Desired[0], func(o *unstructured.Unstructured) bool {
		if o.GetKind() == "Deployment" {
			if err := unstructured.SetNestedStringMap(o.Object, map[string]string{"prometheus.io/scrape": "true"}, "spec", "template", "metadata", "annotations"); err != nil {
				t.Fatal(err)
			}
		}
		return true
	})}
	copied := writeFile(t, "annotations.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  paths: [[spec, template, metadata, annotations]]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]
`)
	// the oracle: kapp's deploy updates the Deployment with the annotation's two lines alone,
	// under both bases, and keeps the rest
	want := []string{"+annotations:", `+prometheus.io/scrape: "true"`}
	for _, ch := range kapptest.BothBases(t, in.Desired, in.Live[0], in.Namespace, []string{rules, copied}) {
		if ch.Op() == ctldiff.ChangeOpKeep || ch.Op() == ctldiff.ChangeOpNoop {
			continue
		}
		var changed []string
		for _, rec := range ch.ConfigurableTextDiff().Full().Records() {
			if d := rec.Delta.String(); d != " " {
				changed = append(changed, d+strings.TrimSpace(rec.Payload))
			}
		}
		if ch.NewResource().Kind() != "Deployment" || !slices.Equal(changed, want) {
			t.Fatalf("against last applied %v: kapp %s %s: %q, the test expects %q", ch.AgainstLastApplied, ch.Op(), ch.NewResource().Description(), changed, want)
		}
	}
	c, err := generator.Check(in, []string{rules, copied})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Residual)+len(c.Hidden) != 0 {
		t.Errorf("check: residual %v, hidden %v; kapp applies the annotation and shows nothing else", c.Residual, c.Hidden)
	}
	if len(c.Pending) != 1 || c.Pending[0].Finding.Path.String() != `spec.template.metadata.annotations["prometheus.io/scrape"]` {
		t.Errorf("check's pending changes: %v, want the annotation", c.Pending)
	}
}
