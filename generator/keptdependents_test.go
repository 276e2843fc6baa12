package generator_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A person's kubectl edit of a field the generated rules copy from the live object, which makes
// the API server set other fields with it (newcomer12 N12-4): sessionAffinity: ClientIP brings
// sessionAffinityConfig, type: NodePort brings externalTrafficPolicy and a node port. kapp keeps
// the edit (the rule copies it) and removes the fields that came with it, which the server sets
// again: a ghost diff after every deploy. check called the config a plain drift (a one-time
// revert), left type: NodePort unmarked as kept, blamed externalTrafficPolicy on "admission of
// kapp's write" and the node port on the allocator (residual ghost diffs, exit 3), and called the
// rules stale, regeneration copying both: tying the rules to the person's edit. Oracles: kapp's
// deploy diff under both bases (the object it applies keeps the edited field, and lacks the
// dependent one the live object holds) and the API server's defaulting of that object (it sets
// the dependent field again).
func TestKeptDriftsDependentDefaultsComeBack(t *testing.T) {
	dir := filepath.Join("testdata", "kept-dependents")
	desired := filepath.Join(dir, "desired.yaml")
	base := generator.Inputs{Desired: []string{desired}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "edge"}
	rules, _ := generatedRules(t, base)
	for _, tc := range []struct {
		live, kept string
		dependent  []string // the fields the server sets for the kept edit
		defaulted  []string // among them, those its defaulting sets (the oracle's)
	}{
		{"live-edit.yaml", "sessionAffinity", []string{"spec.sessionAffinityConfig"}, []string{"sessionAffinityConfig"}},
		{"live-nodeport.yaml", "type", []string{"spec.externalTrafficPolicy", "spec.ports[port=80,protocol=TCP].nodePort"}, []string{"externalTrafficPolicy"}},
	} {
		t.Run(tc.live, func(t *testing.T) {
			live := filepath.Join(dir, tc.live)
			changes := kapptest.BothBases(t, []string{desired}, live, "edge", []string{rules})
			if len(changes) != 2 {
				t.Fatalf("kapp's deploy: %d changes, want the Service's under each base", len(changes))
			}
			for _, ch := range changes {
				applied := ch.NewResource().UnstructuredObject()
				existing := ch.ExistingResource().UnstructuredObject()
				spec, _ := applied["spec"].(map[string]any)
				liveSpec, _ := existing["spec"].(map[string]any)
				if ch.Op() != "update" || spec[tc.kept] != liveSpec[tc.kept] {
					t.Fatalf("kapp (against last applied %v): %s, spec.%s %v applied over %v: want an update keeping the edit", ch.AgainstLastApplied, ch.Op(), tc.kept, spec[tc.kept], liveSpec[tc.kept])
				}
				made, _ := kapptest.Defaulted(t, applied)["spec"].(map[string]any)
				for _, f := range tc.defaulted {
					if _, sent := spec[f]; sent || made[f] == nil || !equalJSON(made[f], liveSpec[f]) {
						t.Fatalf("oracle: kapp sends spec.%s %v, the server's defaulting makes it %v, live %v: want it left out and defaulted back", f, spec[f], made[f], liveSpec[f])
					}
				}
			}
			c, err := generator.Check(generator.Inputs{Desired: []string{desired}, Live: []string{live}, Namespace: "edge"}, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Stale) != 0 || len(c.Residual) != 0 {
				t.Errorf("stale %+v, residual %+v: want none (the fields go with the person's edit)", c.Stale, c.Residual)
			}
			drift := map[string]string{}
			for _, f := range c.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindDrift {
					drift[f.Path] = f.Evidence
				}
			}
			if e := drift["spec."+tc.kept]; !strings.Contains(e, "kapp will NOT revert it") {
				t.Errorf("spec.%s: %q, want drift kept by the rules", tc.kept, e)
			}
			for _, p := range tc.dependent {
				e := drift[p]
				if !strings.Contains(e, "the API server sets it for kubectl-edit's change to spec."+tc.kept) ||
					!strings.Contains(e, "the rules keep spec."+tc.kept) || !strings.Contains(e, "comes back after every deploy") ||
					strings.Contains(e, "admission") || strings.Contains(e, "kapp will NOT revert it") {
					t.Errorf("%s: %q, want drift that follows the kept spec.%s and comes back after every deploy", p, e, tc.kept)
				}
			}
		})
	}
}

// equalJSON reports whether a and b are the same JSON value (numbers of any Go type).
func equalJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}
