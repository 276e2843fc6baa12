package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"os"
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

var record = flag.Bool("record", false, "TestServerWrites: write the live files of compare/testdata/server/writes.yaml not captured yet")

// TestServerWrites makes the live object of every write of compare/testdata/server/writes.yaml
// again on a fresh API server, checks it is the file compare's test judges with, and asks the
// server again whether the write would change it: a server answering otherwise than the file
// says fails here, not silently compare's test.
func TestServerWrites(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{})
	dir := filepath.Join(c.Root, "compare", "testdata", "server")
	writes, err := comparetruth.ReadServerWrites(dir)
	if err != nil {
		t.Fatal(err)
	}
	client, err := comparetruth.NewClient(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, w := range writes {
		live, got, err := client.Replay(ctx, "sw-"+w.Name, w)
		if err != nil {
			t.Fatalf("%s: %v", w.Name, err)
		}
		switch {
		case w.LiveObject == nil && *record:
			b, err := json.MarshalIndent(live.Object, "", "    ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, w.Live), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		case w.LiveObject == nil:
			t.Errorf("%s: %s is missing (-record writes it)", w.Name, w.Live)
		default:
			if differs, err := comparetruth.ObjectDiffers(live, w.LiveObject); err != nil || len(differs) > 0 {
				t.Errorf("%s: the steps make another object than %s: %v %v", w.Name, w.Live, differs, err)
			}
		}
		if got.Rejected != "" || got.Changed != w.Changed || !slices.Equal(got.Differs, w.Differs) {
			t.Errorf("%s: the server now answers changed=%v %v %v rejected=%q; %s says changed=%v %v",
				w.Name, got.Changed, got.Differs, got.Fields, got.Rejected, comparetruth.WritesFile, w.Changed, w.Differs)
		}
	}
}
