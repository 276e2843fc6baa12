// Measuring one stage: wall and CPU time, peak heap sampled through runtime/metrics, allocation.

package main

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

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
	stopProfile := profiling(fmt.Sprintf("%s-%d-%s", m.Corpus, m.Pairs, m.Stage))
	cpu0 := cpuTime()
	start := time.Now()
	res, err := f()
	m.Time = time.Since(start)
	m.CPU = cpuTime() - cpu0
	stopProfile()
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

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mb(b uint64) float64 { return float64(b) / 1e6 }
