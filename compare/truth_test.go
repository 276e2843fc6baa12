package compare

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/comparetruth"
)

// corpus reads every case of fixtures/compare as hack/comparetruth recorded it, and the corpus CRD.
func corpus(t *testing.T) ([]comparetruth.Recorded, *unstructured.Unstructured) {
	t.Helper()
	dir := filepath.Join("..", "fixtures", "compare")
	cases, crd, err := comparetruth.ReadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 200 {
		t.Fatalf("%d cases in %s: the corpus is missing (make fixtures)", len(cases), dir)
	}
	return cases, crd
}

// TestAgainstTheServer judges every captured case offline and holds the verdict to the API
// server's dry run of the same write: no false "unchanged" (a missed change), and a false
// "changed" only where the result is Unsure with evidence.
func TestAgainstTheServer(t *testing.T) {
	cases, crd := corpus(t)
	comparers := map[comparetruth.Mode]*Comparer{}
	for mode, o := range map[comparetruth.Mode]Option{comparetruth.Apply: WithApply(comparetruth.Manager), comparetruth.Update: WithUpdate()} {
		c, err := New(o, WithCRDs(crd))
		if err != nil {
			t.Fatal(err)
		}
		comparers[mode] = c
	}
	var falseUnchanged, falseChanged, unsureUnchanged, unsureChanged, changed, rejected int
	for _, r := range cases {
		res, err := comparers[r.Case.Mode].Compare(r.Desired, r.Live)
		if err != nil {
			t.Errorf("%s: %v", r.Case.Name, err)
			continue
		}
		if r.Truth.Rejected != "" {
			rejected++
			continue // the server refuses the write: nothing to hold the verdict to
		}
		if r.Truth.Changed {
			changed++
		}
		switch {
		case r.Truth.Changed && res.Verdict == NoChange:
			falseUnchanged++
			t.Errorf("%s: NoChange, but the server changes %v %v", r.Case.Name, r.Truth.Differs, r.Truth.Fields)
		case !r.Truth.Changed && res.Verdict == Changes:
			falseChanged++
			t.Errorf("%s: Changes, but the server changes nothing:\n%s", r.Case.Name, fields(res))
		case res.Verdict == Unsure:
			if r.Truth.Changed {
				unsureChanged++
			} else {
				unsureUnchanged++
			}
			if !hasEvidence(res) {
				t.Errorf("%s: Unsure without a field saying why:\n%s", r.Case.Name, fields(res))
			}
		}
	}
	t.Logf("%d cases (%d rejected by the server): %d changed by their write; false unchanged %d, false changed %d; Unsure %d where nothing changes, %d where something does",
		len(cases), rejected, changed, falseUnchanged, falseChanged, unsureUnchanged, unsureChanged)
}

func hasEvidence(r *Result) bool {
	for _, f := range r.Fields {
		if f.Effect == Unknown && f.Evidence != "" {
			return true
		}
	}
	return false
}

func fields(r *Result) string {
	var b strings.Builder
	for _, f := range r.Fields {
		fmt.Fprintf(&b, "  %s %s %s %s: %s\n", f.Path, f.Effect, f.Class, f.Owner, f.Evidence)
	}
	return b.String()
}
