package generator_test

import (
	"sync"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// Progress hears every item of every stage exactly once, counted up to the stage's total.
func TestProgressCountsEveryItemOfEveryStage(t *testing.T) {
	for _, s := range scenarios(t) {
		if s.Name != "hpa-replicas" {
			continue
		}
		var mu sync.Mutex
		seen := map[string]map[int]bool{}
		totals := map[string]int{}
		in := inputs(s)
		in.Progress = func(stage string, done, total int) {
			mu.Lock()
			defer mu.Unlock()
			if seen[stage] == nil {
				seen[stage] = map[int]bool{}
			}
			if seen[stage][done] || done < 1 || done > total {
				t.Errorf("%s: %d of %d reported twice or out of range", stage, done, total)
			}
			seen[stage][done], totals[stage] = true, total
		}
		g, err := generator.Generate(in, synth.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"classify": len(g.Report.Resources), "verify": len(g.Report.Resources), "mutation checks": g.Verification.MutationsRun}
		for stage, n := range want {
			if n == 0 {
				t.Fatalf("%s: the scenario has nothing to count", stage)
			}
			if totals[stage] != n || len(seen[stage]) != n {
				t.Errorf("%s: %d reports, total %d; want %d", stage, len(seen[stage]), totals[stage], n)
			}
		}
		return
	}
	t.Fatal("scenario hpa-replicas not found")
}
