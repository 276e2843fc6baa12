package kappglobal

import (
	"encoding/json"
	"slices"
	"sync"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
)

// reads says which top-level fields of each source a program reads (YTTReads), cached per
// program: ok=false for a program it does not know.
var (
	readsOf    func(overlay string) (map[string][]string, bool)
	readsMu    sync.Mutex
	readsCache = map[string]map[string][]string{} // nil when unknown; cleared when full, as the memo
)

// YTTReads sets how the memo learns which top-level fields of each source (data.values.SOURCE) a
// ytt rule's program reads (generator/emit's, for the programs it writes): their evaluations are
// keyed on the resource and those fields only, so kapp's two bases, whose live objects differ in
// kapp's history annotations alone, share one evaluation (a hit also spares the budgets an
// evaluation with more of what the program never reads: emit's programs walk only the paths in
// their data). Any other program is keyed on the whole of every source.
func YTTReads(f func(overlay string) (map[string][]string, bool)) { readsOf = f }

func programReads(overlay string) map[string][]string {
	readsMu.Lock()
	defer readsMu.Unlock()
	if r, ok := readsCache[overlay]; ok {
		return r
	}
	var reads map[string][]string
	if readsOf != nil {
		if r, ok := readsOf(overlay); ok {
			reads = r
		}
	}
	if len(readsCache) >= yttMemoMax {
		clear(readsCache)
	}
	readsCache[overlay] = reads
	return reads
}

// encFields writes to the memo's key the top-level fields of r a program reads, each marked
// present or not.
func encFields(write func([]byte), r ctlres.Resource, fields []string) bool {
	if r == nil {
		write([]byte("nil"))
		return true
	}
	obj, ok := r.UnstructuredObject(), true
	for _, f := range slices.Sorted(slices.Values(fields)) {
		v, found := obj[f]
		write([]byte(f))
		if !found {
			write([]byte("absent"))
			continue
		}
		bs, err := json.Marshal(v)
		write(bs)
		ok = ok && err == nil
	}
	return ok
}
