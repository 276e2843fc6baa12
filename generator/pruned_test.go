package generator_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// A field the API server does not know (`webhooks:` nested under a `spec:` a
// ValidatingWebhookConfiguration does not have) is dropped when the server stores the object: the
// manifest is wrong, the webhook never registered. It was "defaulted: a zero value the Go type
// omits" and generate wrote a ytt rule hiding it for good (newcomer24 finding 3). It is a finding
// of its own that no rule hides, not even with --include-unknown, and kapp still updates the
// resource for it.
func TestPrunedFieldIsNeverRuled(t *testing.T) {
	dir := filepath.Join("testdata", "pruned-field")
	in := generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}}
	for _, includeUnknown := range []bool{false, true} {
		g, err := generator.Generate(in, synth.Options{IncludeUnknown: includeUnknown})
		if err != nil {
			t.Fatal(err)
		}
		var spec *classify.Finding
		for _, r := range g.Report.Resources {
			for i, f := range r.Findings {
				if f.Path.String() == "spec" {
					spec = &r.Findings[i]
				}
			}
		}
		if spec == nil || spec.Class == classify.Defaulted || !spec.Pruned || !strings.Contains(spec.Evidence, "does not know this field") || spec.Warning == "" {
			t.Fatalf("include unknown %v: spec: got %+v, want a field the server does not know, with a warning", includeUnknown, spec)
		}
		for _, r := range g.Rules {
			if slices.ContainsFunc(r.Paths, func(p []string) bool { return len(p) > 0 && p[0] == "spec" }) || len(r.Rewrites)+len(r.Nulls) > 0 {
				t.Errorf("include unknown %v: a rule hides the pruned spec: %+v", includeUnknown, r)
			}
		}
		if g.Verification.Count(spec.Class) != 1 {
			t.Errorf("include unknown %v: kapp must still update the resource for it: %s", includeUnknown, g.Verification.Summary())
		}
	}
}
