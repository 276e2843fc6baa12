package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/comparetruth"
)

// recorded is one case of fixtures/compare as hack/comparetruth captured it.
type recorded struct {
	name    string
	mode    comparetruth.Mode
	desired *unstructured.Unstructured
	live    *unstructured.Unstructured
	truth   comparetruth.Truth
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// corpus reads every captured case, and the corpus CRD.
func corpus(t *testing.T) ([]recorded, *unstructured.Unstructured) {
	t.Helper()
	dir := filepath.Join("..", "fixtures", "compare")
	crd := &unstructured.Unstructured{}
	readYAML(t, filepath.Join(dir, "crd.yaml"), &crd.Object)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []recorded
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		var cs comparetruth.Case
		r := recorded{name: e.Name(), desired: &unstructured.Unstructured{}, live: &unstructured.Unstructured{}}
		readYAML(t, filepath.Join(dir, e.Name(), "case.yaml"), &cs)
		readYAML(t, filepath.Join(dir, e.Name(), "desired.yaml"), &r.desired.Object)
		readYAML(t, filepath.Join(dir, e.Name(), "live.yaml"), &r.live.Object)
		readYAML(t, filepath.Join(dir, e.Name(), "truth.yaml"), &r.truth)
		r.mode = cs.Mode
		out = append(out, r)
	}
	if len(out) < 300 {
		t.Fatalf("%d cases in %s: the corpus is missing (make fixtures)", len(out), dir)
	}
	return out, crd
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
		res, err := comparers[r.mode].Compare(r.desired, r.live)
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		if r.truth.Rejected != "" {
			rejected++
			continue // the server refuses the write: nothing to hold the verdict to
		}
		if r.truth.Changed {
			changed++
		}
		switch {
		case r.truth.Changed && res.Verdict == NoChange:
			falseUnchanged++
			t.Errorf("%s: NoChange, but the server changes %v %v", r.name, r.truth.Differs, r.truth.Fields)
		case !r.truth.Changed && res.Verdict == Changes:
			falseChanged++
			t.Errorf("%s: Changes, but the server changes nothing:\n%s", r.name, fields(res))
		case res.Verdict == Unsure:
			if r.truth.Changed {
				unsureChanged++
			} else {
				unsureUnchanged++
			}
			if !hasEvidence(res) {
				t.Errorf("%s: Unsure without a field saying why:\n%s", r.name, fields(res))
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
