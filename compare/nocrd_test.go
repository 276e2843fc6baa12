package compare

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/internal/comparetruth"
)

// TestCustomResourceWithoutItsCRD judges the corpus' custom resources without WithCRDs and holds
// the verdicts to the API server's dry run of each write (newcomer walkthrough 10, N10-5): never
// NoChange where the server changes the object, and where the schema, unknown, may make the
// write a no-op (an update omitting a field the schema defaults: widget-noop-update) Unsure with
// a field naming WithCRDs, not Changes, which has a controller write on every pass. The evidence
// names the library's option, not the command line's --crd.
func TestCustomResourceWithoutItsCRD(t *testing.T) {
	cases, _ := corpus(t)
	comparers := map[comparetruth.Mode]*Comparer{}
	for mode, o := range map[comparetruth.Mode]Option{comparetruth.Apply: WithApply(comparetruth.Manager), comparetruth.Update: WithUpdate()} {
		c, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		comparers[mode] = c
	}
	judged := 0
	for _, r := range cases {
		if !r.Case.CRD || r.Truth.Rejected != "" {
			continue
		}
		judged++
		res, err := comparers[r.Case.Mode].Compare(r.Desired, r.Live)
		if err != nil {
			t.Errorf("%s: %v", r.Case.Name, err)
			continue
		}
		for _, f := range res.Fields {
			if strings.Contains(f.Evidence, "--crd") {
				t.Errorf("%s: %s: evidence names the command line's --crd: %s", r.Case.Name, f.Path, f.Evidence)
			}
		}
		switch {
		case r.Truth.Changed && res.Verdict == NoChange:
			t.Errorf("%s: NoChange, but the server changes %v %v", r.Case.Name, r.Truth.Differs, r.Truth.Fields)
		case !r.Truth.Changed && res.Verdict == Changes:
			t.Errorf("%s: Changes, but the server changes nothing (its schema defaults what the write omits):\n%s", r.Case.Name, fields(res))
		case res.Verdict == Unsure && !strings.Contains(fields(res), "WithCRDs"):
			t.Errorf("%s: Unsure without naming WithCRDs:\n%s", r.Case.Name, fields(res))
		}
	}
	if judged < 10 {
		t.Fatalf("%d custom resource cases in the corpus", judged)
	}
}
