// Command bench measures rebasegen at fleet scale (make bench): a synthetic corpus built from the
// captured fixtures at several sizes, and per size the time and memory of each stage against the
// floor of merely parsing the same YAML. Each stage runs as often as makes its time trustworthy
// (repeat), and the table shows the median run. It prints one table and the ratios the
// performance targets are stated in.
//
//	go run ./hack/bench -sizes 100,1000,10000
//	go run ./hack/bench -sizes 10000 -stages explain -cpuprofile /tmp/cpu  (writes /tmp/cpu.fleet-10000-explain, ...)
//	go run ./hack/bench -corpora pending -sizes 100,1000 -stages kapp,check  (one Deployment, N env values changed in Git)
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/rebasegen/rebasegen/internal/scenario"
)

// Corpora: the fixture mix (every captured scenario, renamed copies) and a fleet of Deployment +
// HPA pairs (the hpa-replicas scenario: replicas scaled by the HPA, one container with ports,
// defaults as the test cluster's server stores them), the shape of a package installed many times;
// and, on request (-corpora pending), one pair of those holding as many changes made in Git as
// the size (buildPendingCorpus): check's time against kapp's engine on the same pairs.
var corpora = map[string]string{"fixtures": "", "fleet": "hpa-replicas", "pending": "hpa-replicas"}

func main() {
	os.Exit(mainErr())
}

func mainErr() int {
	sizesFlag := flag.String("sizes", "100,1000,10000", "corpus sizes in resource pairs")
	stagesFlag := flag.String("stages", strings.Join(allStages, ","), "stages to run")
	fixtures := flag.String("fixtures", "fixtures", "captured fixtures directory")
	corporaFlag := flag.String("corpora", "fixtures,fleet", "corpora: fixtures (every captured scenario), fleet (Deployment + HPA pairs), pending (one Deployment + HPA, the size its env values changed in Git)")
	work := flag.String("workdir", "", "directory for the corpora (default: a temp dir, removed)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of each measured stage, all its runs, to PATH.CORPUS-PAIRS-STAGE")
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
			fmt.Fprintf(os.Stderr, "bench: unknown corpus %q (want fixtures,fleet,pending)\n", name)
			return 2
		}
		if objs[name], err = fixturePairs(*fixtures, only); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	if *cpuprofile != "" {
		// one file per measured stage: pprof cannot read profiles written one after another
		// into one file
		profiling = func(label string) (stop func()) {
			f, err := os.Create(*cpuprofile + "." + label)
			if err == nil {
				err = pprof.StartCPUProfile(f)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: cpu profile:", err)
				return func() {}
			}
			return func() {
				pprof.StopCPUProfile()
				f.Close()
			}
		}
	}

	fmt.Printf("rebasegen bench: %d CPUs, GOMAXPROCS %d, %s, corpora from the captured pairs in %s: fixtures (%d pairs), fleet (%d pairs)\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), *fixtures, len(objs["fixtures"]), len(objs["fleet"]))
	var all []measurement
	failed := false
	for _, name := range names {
		for _, n := range sizes {
			build := buildCorpus
			if name == "pending" {
				build = buildPendingCorpus
			}
			c, err := build(objs[name], n, filepath.Join(dir, name, strconv.Itoa(n)))
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: building corpus:", err)
				return 1
			}
			c.Name = name
			fmt.Fprintf(os.Stderr, "%s corpus, %d pairs: %.1f MB of YAML in %s\n", name, n, float64(c.Bytes)/1e6, c.Dir)
			for _, s := range stages {
				m, err := runStage(s, c)
				if err != nil {
					fmt.Fprintf(os.Stderr, "bench: %s at %d pairs: %v\n", s, n, err)
					failed = true
					continue
				}
				fmt.Fprintf(os.Stderr, "  %-9s %3d runs  %10s  cpu %10s  peak %7.1f MB  alloc %8.1f MB  ytt %5d  %s\n", s, m.Runs, m.Time.Round(time.Millisecond),
					m.CPU.Round(time.Millisecond), mb(m.Peak), mb(m.Alloc), m.YTT, m.Note)
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

// profiling starts a CPU profile of one stage (-cpuprofile) and returns what stops it.
var profiling = func(label string) (stop func()) { return func() {} }

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
