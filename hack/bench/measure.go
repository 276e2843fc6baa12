// Measuring one stage: wall and CPU time, peak heap sampled through runtime/metrics, allocation,
// over as many runs as make its time trustworthy.

package main

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// measurement is one stage at one size: the summary of its runs (see summarize).
type measurement struct {
	Corpus   string
	Stage    string
	Pairs    int
	Input    int64 // YAML bytes
	Runs     int   // how many times the stage ran (repeat)
	Time     time.Duration
	CPU      time.Duration // user+system CPU time of the process during the stage
	Peak     uint64        // heap in use, high-water mark above the heap before the stage
	PeakLive uint64        // live heap (marked by a GC), high-water mark above the live heap before the stage
	Alloc    uint64        // bytes allocated during the stage
	YTT      int64         // ytt rebase rule evaluations in one run
	Applied  int64         // rebase mods kapp applied in one run (stages kapp and rules: verify.Cost.Applied)
	Note     string
}

// sample is one run of a stage.
type sample struct {
	Time, CPU             time.Duration
	Peak, PeakLive, Alloc uint64
}

// How often a stage runs, as go test -bench decides it: a sub-second stage's time varies by 10-25%
// from run to run on the 2-core machine (explain/parse at 1,000 pairs read 1.89x in one run and
// 2.10x-2.25x in the next), so it runs until it has run minRuns times and minTotal in all; a stage
// whose first run takes minTotal or more runs once (at 10,000 pairs every stage would triple the
// bench's half hour, for a few percent of noise on a run that long).
const (
	minRuns  = 3
	minTotal = 3 * time.Second
)

// repeat calls once until the stage has run enough (see minRuns), and returns every run.
func repeat(once func() (sample, error)) ([]sample, error) {
	var runs []sample
	var total time.Duration
	for {
		s, err := once()
		if err != nil {
			return nil, err
		}
		runs = append(runs, s)
		total += s.Time
		if total >= minTotal && (len(runs) == 1 || len(runs) >= minRuns) {
			return runs, nil
		}
	}
}

// summarize fills in m from its runs: time, CPU and allocation are each the median of the runs,
// as benchstat reports them (the minimum would pick the run the collector or the machine's other
// load happened to spare, and the ratios compare stages that allocate very differently); peak
// heaps are the maximum over the runs (what the stage needs at worst).
func summarize(m *measurement, runs []sample) {
	median := func(v func(s sample) float64) float64 {
		xs := make([]float64, len(runs))
		for i, s := range runs {
			xs[i] = v(s)
		}
		slices.Sort(xs)
		if n := len(xs); n%2 == 0 {
			return (xs[n/2-1] + xs[n/2]) / 2
		}
		return xs[len(xs)/2]
	}
	m.Runs = len(runs)
	m.Time = time.Duration(median(func(s sample) float64 { return float64(s.Time) }))
	m.CPU = time.Duration(median(func(s sample) float64 { return float64(s.CPU) }))
	m.Alloc = uint64(median(func(s sample) float64 { return float64(s.Alloc) }))
	m.Peak, m.PeakLive = 0, 0
	for _, s := range runs {
		m.Peak = max(m.Peak, s.Peak)
		m.PeakLive = max(m.PeakLive, s.PeakLive)
	}
}

// measureOnce runs f once: its time, peak heap and allocation. The heap is sampled every
// millisecond through runtime/metrics (no stop-the-world).
func measureOnce(f func() (any, error)) (sample, error) {
	var m sample
	runtime.GC()
	runtime.GC()
	baseline := heapInUse()    // setup the stage needs, e.g. verify's pairs
	liveBaseline := liveHeap() // after a GC: the heap objects the stage starts with
	alloc0 := allocated()
	var peak, peakLive atomic.Uint64
	peak.Store(baseline)
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
	cpu0 := cpuTime()
	start := time.Now()
	res, err := f()
	m.Time = time.Since(start)
	m.CPU = cpuTime() - cpu0
	close(stop)
	wg.Wait()
	if h := heapInUse(); h > peak.Load() {
		peak.Store(h)
	}
	runtime.GC() // what the stage returns is live at its end
	if h := liveHeap(); h > peakLive.Load() {
		peakLive.Store(h)
	}
	runtime.KeepAlive(res)
	m.Peak = peak.Load() - baseline
	m.PeakLive = peakLive.Load() - liveBaseline
	m.Alloc = allocated() - alloc0
	return m, err
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

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mb(b uint64) float64 { return float64(b) / 1e6 }
