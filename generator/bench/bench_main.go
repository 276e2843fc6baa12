// Command bench measures rebasegen at fleet scale (make bench): a synthetic corpus built from the
// captured fixtures at several sizes, and per size the time and memory of each stage against the
// floor of merely parsing the same YAML. It prints one table and the ratios the performance
// targets are stated in.
//
//	go run ./generator/bench -sizes 100,1000,10000
//	go run ./generator/bench -sizes 10000 -stages explain -cpuprofile /tmp/explain.pprof
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/scenario"
)

// Stages, in the order they run and are printed.
const (
	stageParse    = "parse"    // (a) floor: sigs.k8s.io/yaml into unstructured objects
	stageExplain  = "explain"  // (b) generator.Explain
	stageSynth    = "synth"    // (c) generator.Synthesize: generate without verification
	stageKapp     = "kapp"     // (d) kapp's engine over every pair, both bases, kapp's own rules only
	stageRules    = "rules"    // (e) the same with the generated Config
	stageGenerate = "generate" // (f) generator.Generate: with verification and mutation checks
)

var allStages = []string{stageParse, stageExplain, stageSynth, stageKapp, stageRules, stageGenerate}

var stageLabel = map[string]string{
	stageParse: "(a) parse floor", stageExplain: "(b) explain", stageSynth: "(c) generate, no verify",
	stageKapp: "(d) kapp engine, no rules", stageRules: "(e) kapp engine, generated rules", stageGenerate: "(f) generate + verify",
}

// Corpora: the fixture mix (every captured scenario, renamed copies) and a fleet of Deployment +
// HPA pairs (the hpa-replicas scenario: replicas scaled by the HPA, one container with ports,
// defaults as a v1.35 server stores them), the shape of a package installed many times.
var corpora = map[string]string{"fixtures": "", "fleet": "hpa-replicas"}

// measurement is one stage at one size.
type measurement struct {
	Corpus   string
	Stage    string
	Pairs    int
	Input    int64 // YAML bytes
	Time     time.Duration
	CPU      time.Duration // user+system CPU time of the process during the stage
	Peak     uint64        // heap in use, high-water mark above the heap before the stage
	PeakLive uint64        // live heap (marked by a GC), high-water mark above the live heap before the stage
	Alloc    uint64        // bytes allocated during the stage
	Baseline uint64        // heap in use before the stage (setup the stage needs, e.g. verify's pairs)
	Note     string
}

func main() {
	os.Exit(mainErr())
}

func mainErr() int {
	sizesFlag := flag.String("sizes", "100,1000,10000", "corpus sizes in resource pairs")
	stagesFlag := flag.String("stages", strings.Join(allStages, ","), "stages to run")
	fixtures := flag.String("fixtures", "fixtures", "captured fixtures directory")
	corporaFlag := flag.String("corpora", "fixtures,fleet", "corpora: fixtures (every captured scenario) and fleet (Deployment + HPA pairs)")
	work := flag.String("workdir", "", "directory for the corpora (default: a temp dir, removed)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured stages")
	memprofile := flag.String("memprofile", "", "write an allocation profile after the run")
	flag.Parse()

	sizes, err := parseSizes(*sizesFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	stages := strings.Split(*stagesFlag, ",")
	for _, s := range stages {
		if _, ok := stageLabel[s]; !ok {
			fmt.Fprintf(os.Stderr, "bench: unknown stage %q (want %s)\n", s, strings.Join(allStages, ","))
			return 2
		}
	}
	dir := *work
	if dir == "" {
		if dir, err = os.MkdirTemp("", "rebasegen-bench-"); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer os.RemoveAll(dir)
	}
	names := strings.Split(*corporaFlag, ",")
	objs := map[string][]scenario.Object{}
	for _, name := range names {
		only, ok := corpora[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "bench: unknown corpus %q (want fixtures,fleet)\n", name)
			return 2
		}
		if objs[name], err = fixturePairs(*fixtures, only); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer f.Close()
		profiling = func(on bool) {
			if on {
				_ = pprof.StartCPUProfile(f)
			} else {
				pprof.StopCPUProfile()
			}
		}
	}

	fmt.Printf("rebasegen bench: %d CPUs, GOMAXPROCS %d, %s, corpora from the captured pairs in %s: fixtures (%d pairs), fleet (%d pairs)\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), *fixtures, len(objs["fixtures"]), len(objs["fleet"]))
	var all []measurement
	failed := false
	for _, name := range names {
		for _, n := range sizes {
			c, err := buildCorpus(objs[name], n, filepath.Join(dir, name, strconv.Itoa(n)))
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: building corpus:", err)
				return 1
			}
			fmt.Fprintf(os.Stderr, "%s corpus, %d pairs: %.1f MB of YAML in %s\n", name, n, float64(c.Bytes)/1e6, c.Dir)
			for _, s := range stages {
				m, err := runStage(s, c)
				m.Corpus = name
				if err != nil {
					fmt.Fprintf(os.Stderr, "bench: %s at %d pairs: %v\n", s, n, err)
					failed = true
					continue
				}
				fmt.Fprintf(os.Stderr, "  %-9s %10s  cpu %10s  peak %7.1f MB  alloc %8.1f MB  %s\n", s, m.Time.Round(time.Millisecond),
					m.CPU.Round(time.Millisecond), mb(m.Peak), mb(m.Alloc), m.Note)
				all = append(all, m)
			}
		}
	}
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
	for _, name := range names {
		printTable(os.Stdout, name, all, sizes)
	}
	if failed {
		return 1
	}
	return 0
}

var profiling = func(bool) {}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(f), "_", ""))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-sizes: bad size %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func inputs(c *corpus) generator.Inputs {
	return generator.Inputs{Desired: []string{c.DesiredDir}, Live: []string{c.LiveDir}, Namespace: "default"}
}

// runStage measures one stage on corpus c, after its untimed setup.
func runStage(stage string, c *corpus) (measurement, error) {
	m := measurement{Stage: stage, Pairs: c.Pairs, Input: c.Bytes}
	run, err := prepare(stage, c, &m)
	if err != nil {
		return m, err
	}
	kappconv.ResetYTTMemo() // no stage profits from the previous one's ytt results
	res, err := measure(&m, run)
	runtime.KeepAlive(res)
	if hits, misses := kappconv.YTTMemoStats(); hits+misses > 0 {
		m.Note += fmt.Sprintf(" (ytt memo: %d of %d evaluations)", hits, hits+misses)
	}
	return m, err
}

// prepare does a stage's untimed setup and returns the work to time; the work notes what it
// found in m.Note.
func prepare(stage string, c *corpus, m *measurement) (run func() (any, error), err error) {
	switch stage {
	case stageParse:
		run = func() (any, error) { return parseFloor(c) }
	case stageExplain:
		run = func() (any, error) {
			rep, set, err := generator.Explain(inputs(c))
			if err == nil && len(rep.Resources) != c.Pairs {
				err = fmt.Errorf("%d pairs classified, want %d (created %d, deleted %d)", len(rep.Resources), c.Pairs, len(set.Created), len(set.Deleted))
			}
			return rep, err
		}
	case stageSynth:
		run = func() (any, error) {
			g, err := generator.Synthesize(inputs(c), synth.Options{})
			if err == nil {
				m.Note = fmt.Sprintf("%d rules", len(g.Rules))
			}
			return g, err
		}
	case stageKapp, stageRules:
		g, err := generator.Synthesize(inputs(c), synth.Options{})
		if err != nil {
			return nil, err
		}
		pairs := g.Set.Pairs // held as the pipeline holds them: compact, decoded while kapp reads them
		var configs []*unstructured.Unstructured
		for _, cfg := range g.Set.Configs {
			configs = append(configs, cfg.Unstructured)
		}
		if stage == stageRules {
			configs = append(configs, g.Config)
		}
		g = nil
		run = func() (any, error) {
			res, err := verify.VerifyEach(len(pairs), func(i int) (verify.Pair, error) {
				d, l, err := pairs[i].Objects()
				return verify.Pair{Desired: d.Unstructured, Live: l.Unstructured}, err
			}, configs, nil)
			if err == nil {
				keep := 0
				for _, r := range res {
					if r.Op[verify.LastApplied] == verify.OpKeep && r.Op[verify.Live] == verify.OpKeep {
						keep++
					}
				}
				m.Note = fmt.Sprintf("%d/%d pairs keep", keep, len(res))
			}
			return res, err
		}
	case stageGenerate:
		run = func() (any, error) {
			g, err := generator.Generate(inputs(c), synth.Options{})
			if err != nil {
				return nil, err
			}
			v := g.Verification
			m.Note = fmt.Sprintf("%d rules (%d ytt), kept %d/%d ghost pairs, %d mutations, %.0f%% of kapp's verify time in the rules", len(g.Rules), ytt(g.Rules),
				v.KeptPairs, v.GhostPairs, v.MutationsRun, 100*v.Cost.Rules.Seconds()/max(v.Cost.Diff.Seconds(), 1e-9))
			if !v.OK() {
				return nil, fmt.Errorf("verification failed: %d residual, %d hidden; first: %s", len(v.Residual), len(v.Hidden), first(v.Residual, v.Hidden))
			}
			return g, nil
		}
	default:
		return nil, fmt.Errorf("unknown stage %q", stage)
	}
	return run, nil
}

func ytt(rules []synth.Rule) int {
	n := 0
	for _, r := range rules {
		if r.YTT() {
			n++
		}
	}
	return n
}

func first(lists ...[]string) string {
	for _, l := range lists {
		if len(l) > 0 {
			return l[0]
		}
	}
	return ""
}

// measure runs f once and fills in its time, peak heap and allocation. The heap is sampled
// every millisecond through runtime/metrics (no stop-the-world).
func measure(m *measurement, f func() (any, error)) (any, error) {
	runtime.GC()
	runtime.GC()
	m.Baseline = heapInUse()
	liveBaseline := liveHeap() // after a GC: the heap objects the stage starts with
	alloc0 := allocated()
	var peak, peakLive atomic.Uint64
	peak.Store(m.Baseline)
	peakLive.Store(liveBaseline)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if h := heapInUse(); h > peak.Load() {
					peak.Store(h)
				}
				if h := liveHeap(); h > peakLive.Load() {
					peakLive.Store(h)
				}
			}
		}
	}()
	profiling(true)
	cpu0 := cpuTime()
	start := time.Now()
	res, err := f()
	m.Time = time.Since(start)
	m.CPU = cpuTime() - cpu0
	profiling(false)
	close(stop)
	wg.Wait()
	if h := heapInUse(); h > peak.Load() {
		peak.Store(h)
	}
	runtime.GC() // what the stage returns is live at its end
	if h := liveHeap(); h > peakLive.Load() {
		peakLive.Store(h)
	}
	m.Peak = peak.Load() - m.Baseline
	m.PeakLive = peakLive.Load() - liveBaseline
	m.Alloc = allocated() - alloc0
	return res, err
}

// metric reads one runtime/metrics value in bytes.
func metric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapInUse is MemStats.HeapInuse (objects plus the unused part of in-use spans).
func heapInUse() uint64 {
	return metric("/memory/classes/heap/objects:bytes") + metric("/memory/classes/heap/unused:bytes")
}

// liveHeap is the heap the last GC found live: the memory the program holds, without the garbage
// the collector lets accumulate between cycles (GOGC=100 lets the heap reach about twice it).
func liveHeap() uint64 { return metric("/gc/heap/live:bytes") }

func allocated() uint64 { return metric("/gc/heap/allocs:bytes") }

var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// parseFloor reads every corpus file and parses each document with sigs.k8s.io/yaml into an
// unstructured object, and nothing else: the least any tool reading the YAML must do.
func parseFloor(c *corpus) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, dir := range []string{c.DesiredDir, c.LiveDir} {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			for _, doc := range docSep.Split(string(data), -1) {
				if strings.TrimSpace(doc) == "" {
					continue
				}
				var m map[string]any
				if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
					return nil, fmt.Errorf("%s: %w", f, err)
				}
				out = append(out, &unstructured.Unstructured{Object: m})
			}
		}
	}
	if len(out) != 2*c.Pairs {
		return nil, fmt.Errorf("parsed %d objects, want %d", len(out), 2*c.Pairs)
	}
	return out, nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mb(b uint64) float64 { return float64(b) / 1e6 }

// Targets (issue 13), checked on every table line that states one.
const (
	maxExplainOverParse = 2.0  // explain <= 2x the parse floor
	maxGenerateOverKapp = 1.5  // generate (verification and mutation checks included) <= 1.5x kapp's engine without rules
	maxRulesOverKapp    = 1.2  // kapp's engine with the generated rules <= 1.2x without
	maxGrowth10x        = 11.0 // 10x the pairs: at most 11x the time
	memPerInput         = 4.0  // peak heap < 4x the input bytes + memSlack
	memSlack            = 100 << 20
)

func printTable(w io.Writer, corpus string, ms []measurement, sizes []int) {
	get := func(stage string, n int) *measurement {
		for i := range ms {
			if ms[i].Corpus == corpus && ms[i].Stage == stage && ms[i].Pairs == n {
				return &ms[i]
			}
		}
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n== %s corpus\n", corpus)
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pairs\tstage\ttime/op\tCPU\tCPU/time\tpeak heap MB\tpeak/input\tpeak live MB\tlive/input\talloc MB\t")
	for _, n := range sizes {
		for _, s := range allStages {
			m := get(s, n)
			if m == nil {
				continue
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.2f\t%.1f\t%.2fx\t%.1f\t%.2fx\t%.1f\t\n", n, stageLabel[s], fmtDur(m.Time), fmtDur(m.CPU),
				m.CPU.Seconds()/m.Time.Seconds(), mb(m.Peak), float64(m.Peak)/float64(m.Input),
				mb(m.PeakLive), float64(m.PeakLive)/float64(m.Input), mb(m.Alloc))
		}
	}
	tw.Flush()
	fmt.Fprintln(&b)

	// ratio of two stages' times against a target: "1.03x ok" or "5.40x OVER (max 1.2x)", with
	// the ratio of their CPU times: on a shared machine the wall times carry the others' load.
	ratio := func(a, c *measurement, max float64) string {
		if a == nil || c == nil || c.Time == 0 || c.CPU == 0 {
			return "-"
		}
		r := a.Time.Seconds() / c.Time.Seconds()
		cpu := fmt.Sprintf(" (cpu %.2fx)", a.CPU.Seconds()/c.CPU.Seconds())
		if r > max {
			return fmt.Sprintf("%.2fx%s OVER (max %.1fx)", r, cpu, max)
		}
		return fmt.Sprintf("%.2fx%s ok", r, cpu)
	}
	// peak heap of a command against 4x its input + 100 MiB
	mem := func(m *measurement) string {
		if m == nil {
			return "-"
		}
		limit := memPerInput*float64(m.Input) + memSlack
		if float64(m.Peak) >= limit {
			return fmt.Sprintf("%.0f MB OVER (max %.0f)", mb(m.Peak), limit/1e6)
		}
		return fmt.Sprintf("%.0f MB ok", mb(m.Peak))
	}
	tw = tabwriter.NewWriter(&b, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pairs\tinput MB\texplain/parse (b)/(a)\tgenerate/kapp (f)/(d)\trules overhead (e)/(d)\texplain peak\tgenerate peak\t")
	for _, n := range sizes {
		in := 0.0
		for _, s := range allStages {
			if m := get(s, n); m != nil {
				in = mb(uint64(m.Input))
			}
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t\n", n, in,
			ratio(get(stageExplain, n), get(stageParse, n), maxExplainOverParse),
			ratio(get(stageGenerate, n), get(stageKapp, n), maxGenerateOverKapp),
			ratio(get(stageRules, n), get(stageKapp, n), maxRulesOverKapp),
			mem(get(stageExplain, n)), mem(get(stageGenerate, n)))
	}
	tw.Flush()

	// growth between consecutive sizes: linear scaling is the size ratio
	for i := 1; i < len(sizes); i++ {
		lo, hi := sizes[i-1], sizes[i]
		max := float64(hi) / float64(lo) * maxGrowth10x / 10
		var parts []string
		for _, s := range allStages {
			if r := ratio(get(s, hi), get(s, lo), max); r != "-" {
				parts = append(parts, s+" "+r)
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "growth %d -> %d pairs (%.0fx the pairs): %s\n", lo, hi, float64(hi)/float64(lo), strings.Join(parts, ", "))
		}
		// Memory per input byte: the slope between two sizes, so the constant (schemes, kapp's and
		// ytt's state) drops out.
		parts = nil
		for _, s := range allStages {
			l, h := get(s, lo), get(s, hi)
			if l == nil || h == nil || h.Input == l.Input {
				continue
			}
			in := float64(h.Input - l.Input)
			parts = append(parts, fmt.Sprintf("%s %.2fx (live %.2fx)", s, (float64(h.Peak)-float64(l.Peak))/in, (float64(h.PeakLive)-float64(l.PeakLive))/in))
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "peak heap per input byte %d -> %d pairs: %s\n", lo, hi, strings.Join(parts, ", "))
		}
	}
	_, _ = w.Write(b.Bytes())
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(100 * time.Microsecond).String()
}
