package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/comparetruth"
	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// TestCompareTruth (issue 29) runs every case of the compare corpus on a fresh API server and
// holds the server's answer to the one recorded in fixtures/compare/<case>/truth.yaml, which
// compare's offline test judges against: a server that answers otherwise fails here rather than
// leaving the corpus silently stale.
func TestCompareTruth(t *testing.T) {
	c := testcluster.Shared(t, testcluster.Options{})
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
		data, err := os.ReadFile(filepath.Join(c.Root, "fixtures", "compare", cs.Name, "truth.yaml"))
		if err != nil {
			t.Errorf("%s: not recorded (make fixtures): %v", cs.Name, err)
			continue
		}
		var want comparetruth.Truth
		if err := yaml.Unmarshal(data, &want); err != nil {
			t.Fatalf("%s: %v", cs.Name, err)
		}
		if got.Changed != want.Changed || !slices.Equal(got.Differs, want.Differs) || !slices.Equal(got.Fields, want.Fields) || (got.Rejected == "") != (want.Rejected == "") {
			t.Errorf("%s: the server now answers changed=%v %v %v rejected=%q; recorded changed=%v %v %v rejected=%q",
				cs.Name, got.Changed, got.Differs, got.Fields, got.Rejected, want.Changed, want.Differs, want.Fields, want.Rejected)
		}
	}
	entries, err := os.ReadDir(filepath.Join(c.Root, "fixtures", "compare"))
	if err != nil {
		t.Fatal(err)
	}
	dirs := 0
	for _, e := range entries {
		if e.IsDir() {
			dirs++
		}
	}
	if dirs != len(cases) {
		t.Errorf("fixtures/compare holds %d cases, the corpus %d (make fixtures)", dirs, len(cases))
	}
}
