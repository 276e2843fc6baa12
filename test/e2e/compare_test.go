package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rebasegen/rebasegen/internal/comparetruth"
	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// TestCompareTruth (issue 29) runs every case of the compare corpus on a fresh API server and
// holds the server's answer to the one recorded in fixtures/compare/<case>.yaml, which compare's
// offline test judges against: a server that answers otherwise fails here rather than leaving the
// corpus silently stale.
func TestCompareTruth(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{})
	recorded, _, err := comparetruth.ReadCorpus(filepath.Join(c.Root, "fixtures", "compare"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]comparetruth.Truth{}
	for _, r := range recorded {
		want[r.Case.Name] = r.Truth
	}
	client, err := comparetruth.NewClient(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CRD(ctx); err != nil {
		t.Fatal(err)
	}
	cases := comparetruth.Cases()
	for _, cs := range cases {
		_, _, got, err := client.Run(ctx, cs)
		if err != nil {
			t.Fatalf("%s: %v", cs.Name, err)
		}
		w, ok := want[cs.Name]
		if !ok {
			t.Errorf("%s: not recorded (make fixtures)", cs.Name)
			continue
		}
		if got.Changed != w.Changed || !slices.Equal(got.Differs, w.Differs) || !slices.Equal(got.Fields, w.Fields) || (got.Rejected == "") != (w.Rejected == "") {
			t.Errorf("%s: the server now answers changed=%v %v %v rejected=%q; recorded changed=%v %v %v rejected=%q",
				cs.Name, got.Changed, got.Differs, got.Fields, got.Rejected, w.Changed, w.Differs, w.Fields, w.Rejected)
		}
	}
	if len(recorded) != len(cases) {
		t.Errorf("fixtures/compare holds %d cases, the corpus %d (make fixtures)", len(recorded), len(cases))
	}
}
