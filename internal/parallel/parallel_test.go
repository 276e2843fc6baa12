package parallel

import (
	"sync/atomic"
	"testing"
)

func TestEachCallsEveryItemOnceWithOneWorkerStatePerGoroutine(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		seen := make([]atomic.Int32, n)
		var workers atomic.Int32
		Each(n, func() func(int) {
			workers.Add(1)
			return func(i int) { seen[i].Add(1) }
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: item %d called %d times", n, i, c)
			}
		}
		if w := int(workers.Load()); w > min(Workers(), n) {
			t.Errorf("n=%d: %d workers, want at most %d", n, w, min(Workers(), n))
		}
	}
}
