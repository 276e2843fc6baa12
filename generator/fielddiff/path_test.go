package fielddiff

import (
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// render's prefix lengths cut the path's rendering into its prefixes' renderings.
func TestRenderPrefixes(t *testing.T) {
	name, idx := "web", 2
	key := fieldpath.KeyByFields("name", "web", "port", 80)
	v := value.NewValueInterface("a.b")
	for _, p := range []fieldpath.Path{
		fieldpath.MakePathOrDie("spec", "template", "metadata", "labels", "app.kubernetes.io/name"),
		{fieldpath.PathElement{FieldName: &name}, fieldpath.PathElement{Index: &idx}, fieldpath.PathElement{Key: key}, fieldpath.PathElement{Value: &v}},
		fieldpath.MakePathOrDie("a b", "c", 0, "d"),
		fieldpath.MakePathOrDie(""),
	} {
		var ends []int
		s := Path(p).render(&ends)
		if s != Path(p).String() || len(ends) != len(p) {
			t.Fatalf("%v: rendered %q with %d ends, String %q", p, s, len(ends), Path(p).String())
		}
		for n := 1; n <= len(p); n++ {
			if got, want := s[:ends[n-1]], Path(p[:n]).String(); got != want {
				t.Errorf("%v: prefix of %d elements %q, want %q", p, n, got, want)
			}
		}
	}
}
