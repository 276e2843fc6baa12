package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

const fixturesDir = "../../fixtures"

// The synthetic corpus is valid: renamed copies still pair one to one, nothing is created or
// deleted, and generate verifies with kapp's engine exactly as on the fixtures themselves.
func TestCorpusPairsAndVerifies(t *testing.T) {
	objs, err := fixturePairs(fixturesDir, "")
	if err != nil {
		t.Fatal(err)
	}
	// kapp's association label is recomputed for the copies: the computation must reproduce the
	// captured value.
	for _, o := range objs {
		if want, ok := o.Live.GetLabels()[kappconv.AssociationLabel]; ok {
			if got := association(o.Live, ""); got != want {
				t.Fatalf("%s: association label %s, computed %s", o.Resource, want, got)
			}
		}
	}
	n := 2*len(objs) + 7 // two whole copies and part of a third
	c, err := buildCorpus(objs, n, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g, err := generator.Generate(inputs(c), synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Report.Resources) != n || len(g.Set.Created) != 0 || len(g.Set.Deleted) != 0 {
		t.Fatalf("%d pairs, %d created, %d deleted; want %d pairs only", len(g.Report.Resources), len(g.Set.Created), len(g.Set.Deleted), n)
	}
	v := g.Verification
	if !v.OK() || v.KeptPairs != v.GhostPairs || v.GhostPairs < n*8/10 {
		t.Fatalf("verification: kept %d of %d ghost pairs (of %d), residual %q, hidden %q", v.KeptPairs, v.GhostPairs, n, v.Residual, v.Hidden)
	}
	// Copies are classified like their originals: same classes per copy.
	perCopy := map[string]map[string]int{}
	for _, r := range g.Report.Resources {
		i := strings.LastIndex(r.ID.Name, "-")
		copyN := r.ID.Name[i+1:]
		if perCopy[copyN] == nil {
			perCopy[copyN] = map[string]int{}
		}
		for _, f := range r.Findings {
			perCopy[copyN][string(f.Class)]++
		}
	}
	if fmt.Sprint(perCopy["0"]) != fmt.Sprint(perCopy["1"]) {
		t.Errorf("copies classified differently: %v vs %v", perCopy["0"], perCopy["1"])
	}
}

func TestParseFloorAndTable(t *testing.T) {
	objs, err := fixturePairs(fixturesDir, "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := buildCorpus(objs, 10, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := runStage(stageParse, c)
	if err != nil {
		t.Fatal(err)
	}
	m.Corpus = "fixtures"
	var b strings.Builder
	printTable(&b, "fixtures", []measurement{m}, []int{10})
	if !strings.Contains(b.String(), "(a) parse floor") {
		t.Errorf("table:\n%s", b.String())
	}
}

// The fleet corpus is Deployment + HPA pairs only, and generate's rules for it are plain copies:
// no ytt rule for kapp to run on every deploy of such a fleet.
func TestFleetCorpusGetsPlainRules(t *testing.T) {
	objs, err := fixturePairs(fixturesDir, corpora["fleet"])
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.Desired.GetKind()]++
	}
	if len(objs) != 2 || kinds["Deployment"] != 1 || kinds["HorizontalPodAutoscaler"] != 1 {
		t.Fatalf("want one Deployment and one HPA pair, got %v", kinds)
	}
	c, err := buildCorpus(objs, 20, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g, err := generator.Generate(inputs(c), synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Verification; !v.OK() || v.KeptPairs != 20 {
		t.Fatalf("verification: kept %d of 20, residual %q, hidden %q", v.KeptPairs, v.Residual, v.Hidden)
	}
	for _, r := range g.Rules {
		if r.YTT() {
			t.Errorf("a ytt rule for the fleet: %+v", r)
		}
	}
}

// BenchmarkStages is the same measurement as `make bench` (go run ./hack/bench), as Go
// benchmarks for -cpuprofile/-memprofile: sizes from REBASEGEN_BENCH_SIZES (default 100,1000).
//
//	go test ./hack/bench -run '^$' -bench 'Stages/1000/explain' -benchtime 1x -cpuprofile cpu.out
func BenchmarkStages(b *testing.B) {
	objs, err := fixturePairs(fixturesDir, "")
	if err != nil {
		b.Fatal(err)
	}
	sizes, err := parseSizes(envOr("REBASEGEN_BENCH_SIZES", "100,1000"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for _, n := range sizes {
		var c *corpus
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if c == nil {
				if c, err = buildCorpus(objs, n, filepath.Join(dir, strconv.Itoa(n))); err != nil {
					b.Fatal(err)
				}
			}
			for _, s := range allStages {
				b.Run(s, func(b *testing.B) {
					m := measurement{Stage: s, Pairs: c.Pairs, Input: c.Bytes}
					run, err := prepare(s, c, &m)
					if err != nil {
						b.Fatal(err)
					}
					b.SetBytes(c.Bytes)
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						kappglobal.ResetYTTMemo()
						if _, err := run(); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(c.Pairs), "pairs")
				})
			}
		})
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
