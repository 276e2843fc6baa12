package fielddiff

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/load"
)

// Declared leaves out exactly apiVersion, kind, metadata.name and metadata.namespace: on every
// fixture object, the set is the object's own field set less each of those, one at a time.
func TestDeclaredLeavesOutIdentity(t *testing.T) {
	files, err := filepath.Glob("../../fixtures/*/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	n := 0
	for _, f := range files {
		if b := filepath.Base(f); b != "desired.yaml" && b != "live.yaml" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := load.Bytes(f, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			got, err := Declared(o.Unstructured)
			if err != nil {
				continue
			}
			tv, err := builtinTyped(o.Unstructured)
			if err != nil {
				if tv, err = deduced.ObjectToTyped(o.Unstructured); err != nil {
					t.Fatal(err)
				}
			}
			want, err := tv.ToFieldSet()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range [][]any{{"apiVersion"}, {"kind"}, {"metadata", "name"}, {"metadata", "namespace"}} {
				want = want.Difference(fieldpath.NewSet(fieldpath.MakePathOrDie(p...)))
			}
			if want = want.Leaves(); !got.Equals(want) {
				t.Errorf("%s %s: Declared\n%s\nwant\n%s", o.Source, o.GetName(), got, want)
			}
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d objects compared", n)
	}
}
