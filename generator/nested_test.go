package generator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// API servers before v1.34 store `creationTimestamp: null` in every embedded ObjectMeta. The
// captured nested-templates objects (v1.34 and later omit it) get it back at each depth where Kubernetes
// keeps an ObjectMeta; the rules must make kapp's engine keep both resources under both bases.
func TestEmbeddedCreationTimestampNullAtEveryDepth(t *testing.T) {
	paths := map[string][][]string{
		"CronJob":     {{"spec", "jobTemplate", "metadata"}, {"spec", "jobTemplate", "spec", "template", "metadata"}},
		"StatefulSet": {{"spec", "template", "metadata"}},
	}
	in := fixture("nested-templates")
	in.Live = []string{editedFixture(t, in.Live[0], func(l *unstructured.Unstructured) bool {
		o := l.Object
		for _, p := range paths[l.GetKind()] {
			m := o
			for _, k := range p {
				m = m[k].(map[string]any)
			}
			m["creationTimestamp"] = nil
		}
		if l.GetKind() == "StatefulSet" {
			for _, vct := range o["spec"].(map[string]any)["volumeClaimTemplates"].([]any) {
				vct.(map[string]any)["metadata"].(map[string]any)["creationTimestamp"] = nil
			}
		}
		return true
	})}
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range g.Report.Resources {
		for _, f := range r.Findings {
			if f.Path[len(f.Path)-1].FieldName != nil && *f.Path[len(f.Path)-1].FieldName == "creationTimestamp" {
				n++
				if f.Class != classify.Calculated {
					t.Errorf("%s %s: %s (%s)", r.ID, f.Path, f.Class, f.Evidence)
				}
			}
		}
	}
	if n != 4 {
		t.Errorf("want the 4 embedded creationTimestamps as findings, got %d", n)
	}
	if v := g.Verification; !v.OK() || v.KeptPairs != 2 {
		t.Fatalf("kapp's engine does not keep both resources: %s\n%v", v.Summary(), v.Residual)
	}
}
