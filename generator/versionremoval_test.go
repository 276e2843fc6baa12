package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// TestRemovalJudgedWithTheServerVersionsDefaults: whether the server gives back a declared
// value Git removes is judged with the defaults of the server the live objects come from, as
// the classifier judges them (rulesets/defaults). The linked version defaults a StatefulSet's
// spec.updateStrategy.rollingUpdate.maxUnavailable to 1, v1.36 sets nothing there: a copy of
// the field from the live object puts back the 1 Git removed, a change on a v1.36 server
// (hidden) and none on the linked version's (the server sets 1 again). Old code: judged with
// the linked version's defaults whatever the server, and v1.36 passed.
func TestRemovalJudgedWithTheServerVersionsDefaults(t *testing.T) {
	const field = "spec.updateStrategy.rollingUpdate.maxUnavailable"
	declared := fixtureEdited(t, "hpa-statefulset", "StatefulSet", func(u *unstructured.Unstructured) {
		if err := unstructured.SetNestedField(u.Object, int64(1), strings.Split(field, ".")...); err != nil {
			t.Fatal(err)
		}
	})
	rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [spec, updateStrategy, rollingUpdate, maxUnavailable]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: StatefulSet}
`)
	for _, c := range []struct {
		version string
		hidden  bool
	}{{"", false}, {"v1.36.0", true}} {
		in := declared
		in.ServerVersion = c.version
		ch, err := generator.Check(in, []string{rules})
		if err != nil {
			t.Fatal(err)
		}
		removed := removalsHidden(ch)
		if got := strings.Contains(strings.Join(removed, "\n"), field); got != c.hidden {
			t.Errorf("server version %q: removals hidden %q, want %s hidden: %v", c.version, removed, field, c.hidden)
		}
	}
}
