// Package parallel is rebasegen's one worker pool: loading, classification, kapp's engine and
// coverage checks all run their independent items on every core through it, with one CPU count.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is how many goroutines Each starts at most: GOMAXPROCS, which follows the CPU quota of
// a container (Go 1.25+) where runtime.NumCPU does not.
func Workers() int { return runtime.GOMAXPROCS(0) }

// Each calls the function newWorker returns for every i in [0, n), on min(Workers(), n)
// goroutines. newWorker runs once per goroutine, for state a worker keeps to itself (a copy of a
// classifier, a kapp Conf). Items are handed out in order; results go in the caller's slots.
func Each(n int, newWorker func() func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(Workers(), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWorker()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				work(i)
			}
		}()
	}
	wg.Wait()
}
