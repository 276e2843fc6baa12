package verdict

// The mutation check's unit: one declared value changed or removed, and its pair for kapp's engine.

import (
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// mutation is one declared value changed, or removed (path nil: the unchanged pair).
type mutation struct {
	r     classify.Resource
	path  fielddiff.Path // by index
	value any            // the changed value, set on a freshly decoded desired object when its round runs
	// removed: the value is taken away, not changed (a removal made in Git; value holds what the
	// manifest declared): it is hidden where the object kapp applies still holds some of it, the
	// rules in force putting it back while kapp's built-in rules alone do not (kapp then applies
	// the live value, whatever it shows)
	removed bool
	// reordered: a change of the order of a list's items made in Git (classify.Finding.Reordered)
	reordered  bool
	what       string         // the field's path by key
	key        fielddiff.Path // the field's path by key once changed (a changed merge key moves its item)
	controller bool           // a manager other than the applier owns the field, with evidence
	single     bool
	// probed: kapp's rebase found the rules rewriting the changed value (else kapp's engine alone
	// judges it: not shown is hidden)
	probed bool
	// members: a resource's values changed together (path nil), where its rules act on each
	// whatever the others are: rules matched by the resource's identity alone, no ytt rule, and no
	// value under metadata (kapp's built-in rules match on annotations, and its deploy reads them)
	// but the annotations and labels only matchers read (entryReads.shared); probed, a batch of the
	// values kapp's rebase is asked about (touch.together, apartInBatch, touch.readAt,
	// entryReads.shared), those rewritten judged together by kapp's engine, then alone where it shows
	// an update
	members []mutation
	// wide: every value changed at once to unlike's draw (allUnlike); where kapp fails on it,
	// each value was asked about alone already
	wide bool
	seq  int // the order the value was found in
	// lives: the live object as it may be when kapp deploys (liveVariants), each a probe of its
	// own beside the capture's (withLives), so that a rule recognising the captured object does
	// not keep the changed value only in the capture; live: the one this probe sees (nil: the
	// capture)
	lives [][]change
	live  []change
	// beside: the deploy's versioned pairs kapp diffs the resource with (besideOf)
	beside []verify.Pair
	// stored: what the API server makes of the object kapp applies (classify.Removals.Stored),
	// where a removal of a field the server derives from another is judged (a pod spec's
	// serviceAccountName from serviceAccount, touch.derived, and a removal made in Git): a
	// removed value it gives back from what a rule copied is kept as surely as one the object
	// holds; nil: the object as kapp applies it (the linked version's defaulting would answer
	// for a server of another minor version)
	stored func(map[string]any) (map[string]any, bool)
}

// storedBy is the stored of m, or of one of its members.
func (m mutation) storedBy() func(map[string]any) (map[string]any, bool) {
	for _, member := range m.members {
		if member.stored != nil {
			return member.stored
		}
	}
	return m.stored
}

// change is a value changed at a path (by index), made with the maps and items on the way, or
// removed.
type change struct {
	path   fielddiff.Path
	value  any
	remove bool
}

// pair is m's pair for kapp's engine, with its value, or its members' values, changed.
func (m mutation) pair() (verify.Pair, error) {
	p, err := m.unchanged()
	if err != nil {
		return p, err
	}
	if p.Live != nil {
		for _, c := range m.live {
			if c.remove {
				c.path.Remove(p.Live.Object)
			} else {
				setAt(p.Live.Object, c.path, c.value)
			}
		}
	}
	_, versioned := p.Desired.GetAnnotations()[kappconv.Versioned]
	m.applyTo(p.Desired.Object)
	for _, member := range m.members {
		member.applyTo(p.Desired.Object)
	}
	if _, still := p.Desired.GetAnnotations()[kappconv.Versioned]; versioned && !still && p.Live != nil && p.Live.GetName() != p.Desired.GetName() {
		// Git took kapp.k14s.io/versioned away (with the annotations it removes): kapp's deploy
		// then creates the plain NAME, which no live object holds, copying nothing from the live
		// NAME-ver-N (it deletes that one): a create, as kapp diffs it (newcomer13 N13-6: the pair
		// of NAME and NAME-ver-N was refused as two resources, and check could not run)
		p.Live = nil
	}
	return p, nil
}

// unchanged is m's resource's pair as the deploy holds it, for kapp's engine.
func (m mutation) unchanged() (verify.Pair, error) {
	p, err := verifyPair(m.r.Pair, nil, nil)
	p.Beside = m.beside
	return p, err
}

// applyTo changes, or removes, m's value in desired.
func (m mutation) applyTo(desired map[string]any) {
	switch {
	case m.path == nil:
	case m.removed:
		m.path.Remove(desired)
	default:
		m.path.Set(desired, m.value)
	}
}
