package verdict

import (
	"slices"
	"sync"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verify"
)

// builtinKept reports, for each change of all at ask (hidden by kapp's built-in rules alone),
// whether those rules truly keep the live value there: kapp's rebase of the manifest with its
// built-in rules only (verify.Rebased, no configs) holds the live value (or, the live object
// lacking the field, lacks it) where the manifest holds another, and holds the live object's
// value still once that value is the manifest's (the pair with the live object's field set as
// the manifest declares it): the value comes from the live object, under both bases. Not every
// change those rules alone do not show is so: labels a Config's additionalLabels or
// ownershipLabelRules write, kapp.k14s.io/noop, a versioned resource's next version are kapp's
// behaviour but no copy of the live value; kapp's engine tells them apart, not a list. None is
// asked about when ask is empty.
func builtinKept(all []mutation, ask []int) ([]bool, error) {
	kept := make([]bool, len(all))
	if len(ask) == 0 {
		return kept, nil
	}
	// probe k < len(ask): the manifest and the live object; k >= len(ask): the live object with
	// change ask[k-len(ask)] made to it; a resource's probes in calls of their own (calls)
	n := len(ask)
	probes := make([]mutation, 2*n)
	for k := range probes {
		probes[k] = all[ask[k%n]]
	}
	// objects is probe k's pair, decoded afresh (kapp's engine and the callback each read one)
	objects := func(k int) (desired, live load.Object, err error) {
		desired, live, err = probes[k].r.Objects()
		if err == nil && k >= n {
			revert(live.Object, desired.Object, byIndex(live.Object, probes[k].path))
		}
		return desired, live, err
	}
	held := make([]int, len(all)) // the probes and bases whose rebased object holds the live value
	var mu sync.Mutex
	for _, call := range calls(probes) {
		err := verify.Rebased(len(call), func(i int) (verify.Pair, error) {
			desired, live, err := objects(call[i])
			p := pairOf(desired, live)
			p.Beside = probes[call[i]].beside
			return p, err
		}, nil, func(i int, _ verify.Base, obj map[string]any, err error) {
			k := call[i]
			if err != nil || obj == nil {
				return // kapp's engine reports a failing pair on the verification
			}
			desired, live, err := objects(k)
			if err != nil {
				return
			}
			at := probes[k].path
			got, gotOK := fielddiff.NewLookup(asDecoded(obj)).Get(at)
			lv, liveOK := fielddiff.NewLookup(live.Object).Get(at)
			dv, desiredOK := fielddiff.NewLookup(desired.Object).Get(at)
			// the rebased object holds the live value; the manifest differs from it in the
			// unchanged probe, agrees with it in the changed one
			if same(got, gotOK, lv, liveOK) && same(dv, desiredOK, lv, liveOK) == (k >= n) {
				mu.Lock()
				held[ask[k%n]]++
				mu.Unlock()
			}
		})
		if err != nil {
			return nil, err
		}
	}
	for i, n := range held {
		kept[i] = n == 2*len(verify.Bases())
	}
	return kept, nil
}

// same: a value (ok: present) equals b's, an absent one b's absence.
func same(a any, aOK bool, b any, bOK bool) bool {
	return aOK == bOK && (!aOK || fielddiff.Equal(a, b))
}

// builtinHow is what kapp does with a change made in Git its built-in rebase rules keep.
const builtinHow = "the object kapp applies holds the live value there, whichever base kapp diffs against: kapp never applies it"

// builtinRuleOf names the built-in rule of kapp's default Config that copies the live value at
// p into r's object (builtinWrites), or the default Config where none can be singled out.
func builtinRuleOf(r classify.Resource, p fielddiff.Path) string {
	const config = "kapp's default Config (carvel.dev/kapp v0.66.0 pkg/kapp/config/default.go, run before every package's rules)"
	desired, _, err := r.Objects()
	if err != nil {
		return config
	}
	writes, _ := builtinWrites(desired.Unstructured)
	at := kappPath(p)
	for _, w := range writes {
		if keysPrefix(w.path, at) && !slices.ContainsFunc(w.except, func(e ctlres.Path) bool { return keysPrefix(e, at) }) {
			return "the rebase rule of " + config + " copying " + pathsText([]ctlres.Path{w.path}) + " from the live object"
		}
	}
	return config
}
