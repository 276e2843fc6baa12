package generator_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
)

// kapp's field manager is its binary's file name (client-go's default user agent): a release
// binary run as downloaded (kapp-linux-amd64) records that name. Captured fixtures with kapp's
// managedFields entries renamed so must be explained exactly as before, kapp named as it
// recorded itself (newcomer24 finding 9: a Secret and a webhook configuration kapp applied were
// "applied by no known applier").
func TestKappUnderItsReleaseFileName(t *testing.T) {
	const renamed = "kapp-linux-amd64"
	for _, name := range []string{"secret-empty-values", "webhooks-cabundle", "controller-filled-data"} {
		t.Run(name, func(t *testing.T) {
			in := fixture(name)
			want, _, err := generator.Explain(in)
			if err != nil {
				t.Fatal(err)
			}
			in.Live = []string{editedFixture(t, in.Live[0], func(l *unstructured.Unstructured) bool {
				mf := l.GetManagedFields()
				for i := range mf {
					if mf[i].Manager == "kapp" {
						mf[i].Manager = renamed
					}
				}
				l.SetManagedFields(mf)
				return true
			})}
			got, _, err := generator.Explain(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Resources) != len(want.Resources) {
				t.Fatalf("%d resources, want %d", len(got.Resources), len(want.Resources))
			}
			kapps := 0
			for i, w := range want.Resources {
				g := got.Resources[i]
				if w.Applier == "kapp" {
					kapps++
					w.Applier = renamed
				}
				if g.Applier != w.Applier {
					t.Errorf("%s: applied by %q, want %q", w.ID, g.Applier, w.Applier)
				}
				if a, b := classes(g.Findings), classes(w.Findings); a != b {
					t.Errorf("%s: findings\n%s\nwant\n%s", w.ID, a, b)
				}
			}
			if kapps == 0 {
				t.Fatal("no resource applied by kapp in the fixture")
			}
		})
	}
}

// classes is each finding's path, class and owner, one a line (an owner kapp recorded as renamed
// reads as kapp).
func classes(fs []classify.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s\n", f.Path, f.Class, strings.Replace(f.Owner, "kapp-linux-amd64", "kapp", 1))
	}
	return b.String()
}
