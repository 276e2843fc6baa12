package yttrender

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// heapObjects is the runtime metric watchHeap reads: live objects and dead ones not yet swept.
const heapObjects = "/memory/classes/heap/objects:bytes"

// heapWatch makes watches take turns: the heap and the memory limit are the process's, so two
// at once would count each other's growth and restore each other's limit.
var heapWatch sync.Mutex

// watchHeap closes over when the heap has grown by more than budget bytes, checking every 10 ms
// until stop is called. Meanwhile the runtime's soft memory limit is lowered to just under the
// budget (unless GOMEMLIMIT is lower), so garbage is collected before it counts against it.
func watchHeap(budget uint64) (over <-chan struct{}, stop func()) {
	heapWatch.Lock()
	sample := []metrics.Sample{{Name: heapObjects}}
	heap := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := heap()
	limit := debug.SetMemoryLimit(-1)
	if want := base + budget - budget/8; want < uint64(limit) && want < math.MaxInt64 {
		debug.SetMemoryLimit(int64(want))
	}
	c, done := make(chan struct{}), make(chan struct{})
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if heap() > base+budget {
					close(c)
					return
				}
			}
		}
	}()
	return c, func() {
		close(done)
		debug.SetMemoryLimit(limit)
		heapWatch.Unlock()
	}
}
