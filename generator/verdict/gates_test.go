package verdict

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// TestBuiltinRulesBuiltOncePerCheck (issue 23): the gates of each resource ask kapp's built-in
// rebase rules which of them copy from the live object; building those rules' matchers anew for
// every resource made each resource cost more than building them all. Counted in allocations,
// which do not depend on the machine's load: asking the rules about one more resource allocates
// less than building their matchers once.
func TestBuiltinRulesBuiltOncePerCheck(t *testing.T) {
	rules, err := kappmatch.BuiltinRebaseRules()
	if err != nil {
		t.Fatal(err)
	}
	build := testing.AllocsPerRun(20, func() {
		for _, r := range rules {
			kappmatch.New(r.ResourceMatchers)
		}
	})
	for _, obj := range []map[string]any{
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "ns"}},
		{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "sa", "namespace": "ns"}},
	} {
		desired := &unstructured.Unstructured{Object: obj}
		if writes, anyWrite := builtinWrites(desired); anyWrite || len(writes) == 0 {
			t.Fatalf("%s: kapp's built-in rules copy metadata from the live object, got %v (any write: %v)", desired.GetKind(), writes, anyWrite)
		}
		per := testing.AllocsPerRun(20, func() { builtinWrites(desired) })
		t.Logf("%s: %.0f allocations per resource, %.0f to build the built-in rules' matchers", desired.GetKind(), per, build)
		if per >= build {
			t.Errorf("%s: %.0f allocations per resource, %.0f to build the built-in rules' matchers: each resource builds them again", desired.GetKind(), per, build)
		}
	}
}
