package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
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
		t.Fatalf("verification: kept %d of %d ghost pairs (of %d), residual %v, hidden %v", v.KeptPairs, v.GhostPairs, n, v.Residual, v.Hidden)
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

// The parse floor parses every object of the corpus (one run: repeat is TestRepeat's).
func TestParseFloor(t *testing.T) {
	objs, err := fixturePairs(fixturesDir, "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := buildCorpus(objs, 10, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := measurement{Stage: stageParse, Pairs: c.Pairs, Input: c.Bytes}
	run, err := prepare(stageParse, c, &m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := measureOnce(run)
	if err != nil {
		t.Fatal(err)
	}
	if s.Time <= 0 || s.Alloc < uint64(c.Bytes) {
		t.Errorf("parsing %d bytes: %+v", c.Bytes, s)
	}
}

// The table: every stage with its runs, the ratios against their targets, and what kapp ran per
// pair without and with the rules.
func TestTable(t *testing.T) {
	at := func(stage string, runs int, secs, cpu float64, ytt, applied int64) measurement {
		return measurement{Corpus: "fleet", Stage: stage, Pairs: 1000, Input: 4_700_000, Runs: runs,
			Time: time.Duration(secs * float64(time.Second)), CPU: time.Duration(cpu * float64(time.Second)),
			Peak: 40_000_000, PeakLive: 20_000_000, YTT: ytt, Applied: applied}
	}
	ms := []measurement{
		at(stageParse, 8, 0.4, 0.6, 0, 0),
		at(stageExplain, 4, 0.9, 1.5, 0, 0),
		at(stageKapp, 3, 2, 4, 100, 18_000),
		at(stageRules, 1, 3, 4.4, 360, 28_500),
		at(stageGenerate, 1, 6, 12, 500, 40_000),
	}
	var b strings.Builder
	printTable(&b, "fleet", ms, []int{1000})
	out := b.String()
	for _, want := range []string{
		"(d), (e): the diff of kapp deploy --app-changes-max-to-keep=5 --apply-timeout=5m --yes (kapp-controller v0.51.0's flags: no --diff-changes), one change per pair under the last-applied base, on one goroutine, as kapp calculates it",
		"pairs                             stage  runs  time/op  CPU/op",
		"1000                   (a) parse floor     8    400ms",
		"1000  (e) kapp engine, generated rules     1       3s",
		"cpu 2.50x (wall 2.25x) OVER (max 2.0x)", // explain/parse
		"cpu 3.00x (wall 3.00x) OVER (max 1.5x)", // generate/kapp
		"cpu 1.10x (wall 1.50x) ok",              // rules overhead: judged by CPU
		"0.10 -> 0.36", "18.0 -> 28.5",           // ytt evaluations and rebase mods per pair
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// Growth is judged for rebasegen's stages only: the floors' growth (parse, kapp's engine) is shown
// without a verdict.
func TestGrowthJudgesOnlyRebasegen(t *testing.T) {
	at := func(stage string, n int, secs float64) measurement {
		return measurement{Corpus: "fleet", Stage: stage, Pairs: n, Input: int64(n) * 4700, Runs: 1,
			Time: time.Duration(secs * float64(time.Second)), CPU: time.Duration(secs * float64(time.Second))}
	}
	var ms []measurement
	for _, s := range []string{stageParse, stageKapp, stageExplain} {
		ms = append(ms, at(s, 1000, 1), at(s, 10000, 12))
	}
	var b strings.Builder
	printTable(&b, "fleet", ms, []int{1000, 10000})
	want := "growth 1000 -> 10000 pairs (10x the pairs): parse cpu 12.00x (wall 12.00x), explain cpu 12.00x (wall 12.00x) OVER (max 11.0x), kapp cpu 12.00x (wall 12.00x)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, b.String())
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
		t.Fatalf("verification: kept %d of 20, residual %v, hidden %v", v.KeptPairs, v.Residual, v.Hidden)
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

// fakeStage returns runs that took the given times, one per call, CPU twice the time, and counts
// its calls; past the list it fails the test.
func fakeStage(t *testing.T, times ...time.Duration) (once func() (sample, error), calls *int) {
	calls = new(int)
	return func() (sample, error) {
		if *calls >= len(times) {
			t.Fatalf("run %d: the stage ran more often than %d times", *calls+1, len(times))
		}
		d := times[*calls]
		*calls++
		return sample{Time: d, CPU: 2 * d}, nil
	}, calls
}

// A stage runs until it has run 3 times and 3 s in all; one whose first run takes 3 s or more
// runs once.
func TestRepeat(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name  string
		times []time.Duration
		want  int
	}{
		{"sub-second runs until 3 s", []time.Duration{400 * ms, 400 * ms, 400 * ms, 400 * ms, 400 * ms, 400 * ms, 400 * ms, 400 * ms, 400 * ms}, 8},
		{"a long first run is enough", []time.Duration{3 * time.Second, time.Second}, 1},
		{"3 s after 2 runs: a third", []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}, 3},
		{"a long second run: still 3 runs", []time.Duration{time.Second, 10 * time.Second, time.Second, time.Second}, 3},
		{"3 runs short of 3 s: more", []time.Duration{900 * ms, 900 * ms, 900 * ms, 300 * ms, 300 * ms}, 4},
	} {
		once, calls := fakeStage(t, tc.times...)
		runs, err := repeat(once)
		if err != nil || len(runs) != tc.want || *calls != tc.want {
			t.Errorf("%s: %d runs (%d calls), err %v; want %d", tc.name, len(runs), *calls, err, tc.want)
		}
		for i, r := range runs {
			if r.Time != tc.times[i] {
				t.Errorf("%s: run %d took %s, want %s", tc.name, i, r.Time, tc.times[i])
			}
		}
	}

	// a failing run ends the stage with its error
	calls := 0
	_, err := repeat(func() (sample, error) {
		calls++
		if calls == 2 {
			return sample{}, errors.New("boom")
		}
		return sample{Time: time.Millisecond}, nil
	})
	if err == nil || err.Error() != "boom" || calls != 2 {
		t.Errorf("error %v after %d runs, want boom after 2", err, calls)
	}
}

// Time, CPU and allocation are each their own median over the runs; peaks the maximum.
func TestSummarize(t *testing.T) {
	s := time.Second
	var m measurement
	summarize(&m, []sample{
		{Time: 5 * s, CPU: 2 * s, Alloc: 30, Peak: 7, PeakLive: 1},
		{Time: 1 * s, CPU: 9 * s, Alloc: 10, Peak: 9, PeakLive: 4},
		{Time: 3 * s, CPU: 4 * s, Alloc: 20, Peak: 8, PeakLive: 2},
	})
	if m.Runs != 3 || m.Time != 3*s || m.CPU != 4*s || m.Alloc != 20 || m.Peak != 9 || m.PeakLive != 4 {
		t.Errorf("odd runs: %+v", m)
	}
	summarize(&m, []sample{{Time: 4 * s, CPU: s, Alloc: 8}, {Time: 2 * s, CPU: 3 * s, Alloc: 4}})
	if m.Runs != 2 || m.Time != 3*s || m.CPU != 2*s || m.Alloc != 6 || m.Peak != 0 {
		t.Errorf("even runs: the mean of the middle two: %+v", m)
	}
	summarize(&m, []sample{{Time: 7 * s, CPU: 6 * s, Alloc: 5, Peak: 3}})
	if m.Runs != 1 || m.Time != 7*s || m.CPU != 6*s || m.Alloc != 5 || m.Peak != 3 {
		t.Errorf("one run: %+v", m)
	}
}

// BenchmarkRuleMatchers is what kapp's own matcher code costs to select the resources of every
// rule generate writes for the fleet (REBASEGEN_MATCH_PAIRS pairs, default 10,000): per op, each
// rule's matcher, as kapp builds it from the generated Config (an anyMatcher of the rule's
// resourceMatchers), tried on every desired resource, once: what kapp pays per rebase of the
// fleet. "flat" is the same rules with their names as a flat list of kindNamespaceNameMatchers,
// which kapp tries in order on every resource of every kind.
//
//	go test ./hack/bench -run '^$' -bench RuleMatchers -benchtime 5x
func BenchmarkRuleMatchers(b *testing.B) {
	objs, err := fixturePairs(fixturesDir, corpora["fleet"])
	if err != nil {
		b.Fatal(err)
	}
	n, err := strconv.Atoi(envOr("REBASEGEN_MATCH_PAIRS", "10000"))
	if err != nil {
		b.Fatal(err)
	}
	c, err := buildCorpus(objs, n, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	g, err := generator.Synthesize(inputs(c), synth.Options{})
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := verify.ConfigOf(ctlres.NewResourceUnstructured(*g.Config, ctlres.ResourceType{}))
	if err != nil {
		b.Fatal(err)
	}
	var resources []ctlres.Resource
	for _, r := range g.Report.Resources {
		d, err := r.Desired.Object()
		if err != nil {
			b.Fatal(err)
		}
		resources = append(resources, ctlres.NewResourceUnstructured(*d.Unstructured, ctlres.ResourceType{}))
	}
	for _, shape := range []string{"generated", "flat"} {
		var ms []ctlres.ResourceMatcher
		for _, r := range cfg.RebaseRules {
			rms := r.ResourceMatchers
			if shape == "flat" {
				rms = flatNames(rms)
			}
			ms = append(ms, ctlres.AnyMatcher{Matchers: ctlconf.ResourceMatchers(rms).AsResourceMatchers()})
		}
		b.Run(shape, func(b *testing.B) {
			matched := 0
			for b.Loop() {
				matched = 0
				for _, res := range resources {
					for _, m := range ms {
						if m.Matches(res) {
							matched++
						}
					}
				}
			}
			b.ReportMetric(float64(matched), "matches")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(resources)), "ns/resource")
		})
	}
}

// flatNames writes a list of names behind a kind's matcher (andMatcher of the kind and the
// anyMatcher of kindNamespaceNameMatchers) as the names alone, the shape generate wrote before.
func flatNames(ms []ctlconf.ResourceMatcher) []ctlconf.ResourceMatcher {
	var out []ctlconf.ResourceMatcher
	for _, m := range ms {
		if m.AndMatcher != nil && len(m.AndMatcher.Matchers) == 2 && m.AndMatcher.Matchers[1].AnyMatcher != nil {
			out = append(out, m.AndMatcher.Matchers[1].AnyMatcher.Matchers...)
			continue
		}
		out = append(out, m)
	}
	return out
}

// TestSplitDocs: the floor splits a stream at lines of --- (spaces or tabs after them allowed)
// and nowhere else, as the regexp split it replaces did.
func TestSplitDocs(t *testing.T) {
	in := "a: 1\n---\nb: 2\n--- \t\nc: '---'\n  ---\n---x: 3\n---\n"
	var got []string
	for _, d := range splitDocs([]byte(in)) {
		got = append(got, string(d))
	}
	want := []string{"a: 1\n", "b: 2\n", "c: '---'\n  ---\n---x: 3\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("split %q into %q, want %q", in, got, want)
	}
}
