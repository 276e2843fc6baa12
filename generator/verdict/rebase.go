package verdict

// kapp's answers for the mutation check: its rebase of each changed manifest, and its diffs under both bases.

import (
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// rebased is what kapp made of one probe: the bases under which the object kapp applies does
// not hold the probe's changed value (a bit per base of verify.Bases), and, for the unchanged
// pair, the annotation that makes kapp apply nothing to it, with that object. failed: kapp fails
// on the changed value (its deploy would stop there, not hide the change).
type rebased struct {
	rewrites uint8
	members  []uint8 // rewrites of each of a joint probe's members
	inert    string
	obj      map[string]any
	failed   bool
	// kept: for a removal (each member's, of a joint probe of removals), what the object kapp
	// applies holds where the manifest no longer declares it, under a base where it holds some
	kept        any
	membersKept []any
}

// rebasedBy asks kapp's change factory, with configs after its built-in rules, what it makes of
// each probe (verify.Rebased), in the verify calls of runMutations. kapp failing on the unchanged
// pair is an error (kapp's engine reports it on the verification first).
func rebasedBy(probes []mutation, configs []*unstructured.Unstructured) ([]rebased, error) {
	out := make([]rebased, len(probes))
	var mu sync.Mutex
	var failed error
	for _, call := range calls(probes) {
		err := verify.Rebased(len(call), func(i int) (verify.Pair, error) {
			return probes[call[i]].pair()
		}, configs, func(i int, b verify.Base, obj map[string]any, err error) {
			m, r := probes[call[i]], &out[call[i]]
			switch {
			case err != nil && m.path == nil && m.members == nil && m.live == nil:
				mu.Lock()
				failed = fmt.Errorf("%s: %w", escape.Text(m.r.ID.String()), err)
				mu.Unlock()
			case err != nil:
				r.failed = true
			case m.members != nil:
				if r.members == nil {
					r.members, r.membersKept = make([]uint8, len(m.members)), make([]any, len(m.members))
				}
				decoded := asServerMade(asDecoded(obj), m.storedBy())
				for k, member := range m.members {
					if rewritten, kept := member.rewrittenIn(decoded.get()); rewritten {
						r.members[k] |= 1 << slices.Index(verify.Bases(), b)
						r.membersKept[k] = kept
					} else if stored, ok := decoded.stored(); ok && member.stored != nil {
						if rewritten, kept := member.rewrittenIn(stored); rewritten {
							r.members[k] |= 1 << slices.Index(verify.Bases(), b)
							r.membersKept[k] = kept
						}
					}
				}
			case m.path == nil:
				if k := verify.AppliesNothing(obj); k != "" && r.inert == "" {
					r.inert, r.obj = k, (&unstructured.Unstructured{Object: obj}).DeepCopy().Object
				}
			default:
				decoded := asServerMade(asDecoded(obj), m.stored)
				rewritten, kept := m.rewrittenIn(decoded.get())
				if stored, ok := decoded.stored(); !rewritten && ok {
					rewritten, kept = m.rewrittenIn(stored)
				}
				if rewritten {
					r.rewrites |= 1 << slices.Index(verify.Bases(), b)
					r.kept = kept
				}
			}
		})
		if err == nil {
			err = failed
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rebasedAll is rebasedBy of each probe with the live object as captured and as it may be when
// kapp deploys (mutation.lives): kapp deploys against the one or the other. The probe's value
// is rewritten where it is in any (what a removal keeps, where first found); kapp fails on it
// only where it fails in all.
func rebasedAll(probes []mutation, configs []*unstructured.Unstructured) ([]rebased, error) {
	res, err := rebasedBy(withLives(probes), configs)
	if err != nil {
		return nil, err
	}
	out, twin := res[:len(probes)], len(probes)
	for i, m := range probes {
		for range m.lives {
			a, b := out[i], res[twin]
			twin++
			switch {
			case a.failed:
				out[i] = b
				continue
			case b.failed:
				continue
			}
			if a.rewrites == 0 {
				a.kept = b.kept
			}
			a.rewrites |= b.rewrites
			for k := range a.members {
				if a.members[k] == 0 {
					a.membersKept[k] = b.membersKept[k]
				}
				a.members[k] |= b.members[k]
			}
			if a.inert == "" {
				a.inert, a.obj = b.inert, b.obj
			}
			out[i] = a
		}
	}
	return out, nil
}

// withLives is probes as captured (live nil), then each probe again with each of its lives, in
// order.
func withLives(probes []mutation) []mutation {
	out := make([]mutation, 0, len(probes))
	for _, m := range probes {
		m.live = nil
		out = append(out, m)
	}
	for _, m := range probes {
		for _, l := range m.lives {
			m.live = l
			out = append(out, m)
		}
	}
	return out
}

// runMutations asks kapp's engine, for each mutation, whether it shows the change under both
// bases (verify.Shown): an update whose diff differs from kapp's diff of the unmutated pair (a
// pair kapp already updates for another field shows the change only in its diff), and returns
// what kapp showed, in all's order. verified holds kapp's results on the unmutated pairs from the
// verification, if any.
//
// Performance: kapp's result on a resource's unmutated pair (the baseline) is taken from the
// verification when it is provably the same question (verify.Result.Alone: the same pair with
// the same configs, and nothing else of the call entered kapp's verdict); only the other
// resources' unmutated pairs are asked about here. The mutations are verified in rounds, one
// verify call per round with at most one mutation per resource (kapp rejects two copies of a
// resource in one deploy), so they run on every core and kapp's Config is built once per round,
// not once per mutation (its cost grows with the resources it matches). A mutation whose
// pair could influence the others in a deploy (versioned resources, kapp config ConfigMaps, a
// live object without kapp's app label) gets a call of its own, as does its baseline. Each
// resource is decoded once to find its mutations and again only while its round is encoded for
// kapp.
func runMutations(all []mutation, configs []*unstructured.Unstructured, done func(), verified map[pair.Identity]verify.Result) ([]bool, error) {
	baseline := map[pair.Identity]verify.Result{}
	var unverified []mutation // one per resource whose unmutated pair kapp is asked about here
	seen := map[pair.Identity]bool{}
	for _, m := range all {
		if seen[m.r.ID] {
			continue
		}
		seen[m.r.ID] = true
		if res, ok := verified[m.r.ID]; ok && res.Alone && !m.single && m.beside == nil {
			baseline[m.r.ID] = res
			continue
		}
		unverified = append(unverified, mutation{r: m.r, single: m.single, beside: m.beside})
	}
	for _, call := range calls(unverified) {
		res, _, err := verify.Baselines(len(call), func(i int) (verify.Pair, error) {
			return unverified[call[i]].unchanged()
		}, configs, nil)
		if err != nil {
			return nil, err
		}
		for i, j := range call {
			baseline[unverified[j].r.ID] = res[i]
		}
	}
	shown := make([]bool, len(all))
	for _, call := range calls(all) {
		res, err := verify.Shown(len(call), func(i int) (verify.Pair, error) {
			return all[call[i]].pair()
		}, func(i int) verify.Result { return baseline[all[call[i]].r.ID] }, configs, done)
		if err != nil {
			return nil, err
		}
		for i, j := range call {
			shown[j] = res[i]
		}
	}
	return shown, nil
}

// calls groups mutations into verify calls: the n-th mutation of each resource in the n-th call
// (one copy of a resource per call), and a call of its own for each single one.
func calls(ms []mutation) [][]int {
	var rounds, singles [][]int
	perResource := map[pair.Identity]int{}
	for i, m := range ms {
		if m.single {
			singles = append(singles, []int{i})
			continue
		}
		n := perResource[m.r.ID]
		perResource[m.r.ID]++
		if n == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[n] = append(rounds[n], i)
	}
	return append(rounds, singles...)
}

// batchable reports whether a mutated pair may share a verify.Verify call with other pairs and
// get the verdict it gets alone: kapp diffs versioned resources together, reads ConfigMaps
// labelled kapp.k14s.io/config as config for the whole deploy, and labels a live object without
// an app label with the app most pairs of the call have.
func batchable(desired, live *unstructured.Unstructured) bool {
	if _, ok := desired.GetAnnotations()[kappconv.Versioned]; ok {
		return false
	}
	if _, ok := desired.GetLabels()[kappconv.ConfigLabel]; ok {
		return false
	}
	return live != nil && live.GetLabels()[kappconv.AppLabel] != ""
}

// serverMade is the object kapp applies, and what the API server makes of it, made on first use:
// asked only where a removal is not in the object itself.
type serverMade struct {
	obj   map[string]any
	store func(map[string]any) (map[string]any, bool)
	done  bool
	made  map[string]any
	ok    bool
}

func asServerMade(obj map[string]any, store func(map[string]any) (map[string]any, bool)) *serverMade {
	return &serverMade{obj: obj, store: store}
}

// the object kapp applies
func (s *serverMade) get() map[string]any { return s.obj }

// stored is what the API server stores of it; false where that is not known.
func (s *serverMade) stored() (map[string]any, bool) {
	if s.store == nil {
		return nil, false
	}
	if !s.done {
		s.done = true
		s.made, s.ok = s.store(s.obj)
	}
	return s.made, s.ok
}
