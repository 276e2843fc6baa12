package classify

import (
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// The report's memory: classification's results stay live while kapp's engine verifies the
// rules, so they are laid out to pin as little as they can.

// pack moves every pair's findings into one allocation (each pair's slice capped at its own, so
// appending to one never writes into the next). Performance: made one by one amid the garbage of
// classification, the slices pinned memory spans that were otherwise free for the rest of the
// run; the report stays live while kapp's engine verifies the rules.
func pack(res []Resource) {
	n := 0
	for _, r := range res {
		n += len(r.Findings)
	}
	all := make([]Finding, 0, n)
	for i, r := range res {
		if r.Findings != nil {
			start := len(all)
			all = append(all, r.Findings...)
			res[i].Findings = all[start:len(all):len(all)]
		}
	}
}

// pathTable hands out one copy of each finding path. Performance: a fleet repeats a few hundred
// paths across thousands of resources; the report stays live while kapp's engine verifies the
// rules, which allocates heavily, and every garbage collection scans every copy. Shared as each
// pair is classified (rather than once all are), the copies are never live together: at fleet
// 10,000 they were a sixth of the live heap at the end of classification.
type pathTable struct {
	mu sync.Mutex
	m  map[string][]fielddiff.Path // by rendering; equal paths only are shared
}

func (t *pathTable) share(p fielddiff.Path) fielddiff.Path {
	k := p.String()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, q := range t.m[k] {
		if fieldpath.Path(q).Equals(fieldpath.Path(p)) {
			return q
		}
	}
	t.m[k] = append(t.m[k], p)
	return p
}
