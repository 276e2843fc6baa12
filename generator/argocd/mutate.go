package argocd

// The mutation check of a resource: each value the manifest declares changed in turn, away from
// the live object's value, and each map or list it declares removed, together where the changes
// cannot meet (batch.go).

import (
	"maps"
	"slices"

	gdiff "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// mutation is the mutation check of one resource under s, its findings recorded in v.
type mutation struct {
	r             classify.Resource
	desired, live *unstructured.Unstructured
	s             Settings
	// resolved and plain are Argo CD's verdicts on the manifest under s and without ignores.
	resolved, plain *gdiff.DiffResult
	v               *Verification
	keeps           bool             // the Application's sync keeps the ignored fields live (Problem.SyncKeeps)
	recorded        []fielddiff.Path // the paths (by key) of the findings recorded
}

// record records the change at keyed the ignores hide; hides tells whether Argo CD hides it under
// some of the ignores (for the entry to blame).
func (m *mutation) record(keyed fielddiff.Path, hides func(sub Settings, strip bool) (bool, error)) error {
	return m.recordAt(keyed, func() (verdict.RuleAt, error) { return m.s.blame(hides) })
}

// recordHeld records the difference at keyed the manifest holds now (no value drawn), which the
// ignores hide: hidden whoever owns the field. A controller's exemption holds only for the value
// Argo CD last applied, and classification calls a value that differs from it a change made in
// Git (pending, its owner named), as the kapp target's check of changes made in Git does (probe11
// P11-1: an image bump on a field a controller owns was masked, and check passed).
func (m *mutation) recordHeld(keyed fielddiff.Path, hides func(sub Settings, strip bool) (bool, error)) error {
	return m.file(keyed, func() (verdict.RuleAt, error) { return m.s.blame(hides) }, false)
}

// recordAt records the change at keyed the ignores hide, at the entry to blame (Problem.At).
func (m *mutation) recordAt(keyed fielddiff.Path, blame func() (verdict.RuleAt, error)) error {
	return m.file(keyed, blame, verdict.Controlled(m.r, m.desired.Object, keyed))
}

// file records the change at keyed the ignores hide: masked where the field is a controller's
// (its evidence), else hidden, blamed on an entry.
func (m *mutation) file(keyed fielddiff.Path, blame func() (verdict.RuleAt, error), masked bool) error {
	m.recorded = append(m.recorded, keyed)
	problem := Problem{Resource: m.r.ID, Path: keyed.String(), SyncKeeps: m.keeps}
	if f, ok := explaining(m.r, keyed); ok {
		problem.Class = f.Label()
		if f.Class == classify.Pending {
			problem.Owner = f.Owner
		}
	}
	to := &m.v.Hidden
	if masked {
		to = &m.v.Masked
	}
	if slices.ContainsFunc(*to, func(q Problem) bool { return q.Resource == problem.Resource && q.Path == problem.Path }) {
		return nil
	}
	at, err := blame() // a masked field's too: its note points at the entry taking it
	if err != nil {
		return err
	}
	problem.At = at
	*to = append(*to, problem)
	return nil
}

// hidesChange: under sub, Argo CD shows mut (a declared value changed in turn) as no change
// against live; strip: with the manifest's own ignore annotation out of force.
func (m *mutation) hidesChange(mut *unstructured.Unstructured, at fielddiff.Path) func(Settings, bool) (bool, error) {
	return func(sub Settings, strip bool) (bool, error) {
		d, changed := m.desired, mut
		if strip {
			d, changed = withoutAnnotatedIgnores(d), withoutAnnotatedIgnores(changed)
		}
		base, err := Diff(d, m.live, sub)
		if err != nil {
			return false, err
		}
		shown, err := shows(changed, m.live, sub, base, at)
		return !shown, err
	}
}

// hidesPath: under sub, Argo CD does not show the field at p (a difference the manifest holds).
func (m *mutation) hidesPath(p fielddiff.Path) func(Settings, bool) (bool, error) {
	return func(sub Settings, strip bool) (bool, error) {
		d := m.desired
		if strip {
			d = withoutAnnotatedIgnores(d)
		}
		res, err := Diff(d, m.live, sub)
		if err != nil || !res.Modified {
			return err == nil, err
		}
		paths, err := shownPaths(res)
		return !slices.ContainsFunc(paths, func(q fielddiff.Path) bool { return q.String() == p.String() }), err
	}
}

// values changes each declared value in turn, together where the changes cannot meet (batch.go).
func (m *mutation) values() error {
	desired := m.desired
	values := scalars(desired.Object, nil)
	batches := map[int][]change{}
	var alone []int // by index in values
	held, taken := fielddiff.NewLookup(desired.DeepCopy().Object), map[string]bool{}
	for i, p := range values {
		keyed := fielddiff.ByKey(desired, p)
		b := batchOf(keyed)
		if b < 0 {
			alone = append(alone, i)
			continue
		}
		old, _ := p.Get(desired.Object)
		value, ok := differentFrom(old, m.live.Object, keyed)
		if !ok {
			continue // no value to draw: none is drawn alone either
		}
		if b > 0 {
			if value, ok = identityDraw(desired, held, m.live.Object, p, keyed, taken); !ok {
				alone = append(alone, i)
				continue
			}
		}
		batches[b] = append(batches[b], change{at: p, value: value, i: i})
	}
	for _, changes := range batches {
		// read each change where it lands: a changed key names its item anew
		mut := desired.DeepCopy()
		setAll(mut, changes)
		for k := range changes {
			changes[k].read = fielddiff.ByKey(mut, changes[k].at)
		}
	}
	unsettled, hidden, settled, err := m.judgeBatches(batches, setAll)
	if err != nil {
		return err
	}
	m.v.Mutation += settled
	blamed, err := m.blameAll(hidden)
	if err != nil {
		return err
	}
	hiddenAt := map[int]change{}
	for _, c := range hidden {
		hiddenAt[c.i] = c
	}
	// in the order of the values, as when each was changed alone
	order := append(append(unsettled, alone...), slices.Collect(maps.Keys(hiddenAt))...)
	slices.Sort(order)
	for _, i := range order {
		c, ok := hiddenAt[i]
		if !ok {
			if err := m.single(values[i]); err != nil {
				return err
			}
			continue
		}
		keyed := fielddiff.ByKey(desired, c.at)
		if at, ok := blamed[i]; ok {
			if err := m.recordAt(keyed, func() (verdict.RuleAt, error) { return at, nil }); err != nil {
				return err
			}
			continue
		}
		mut := desired.DeepCopy()
		c.at.Set(mut.Object, c.value)
		if err := m.record(keyed, m.hidesChange(mut, c.read)); err != nil {
			return err
		}
	}
	return nil
}

// blameAll is blame for the values changed together that a batch found hidden: entry by entry,
// the changes not yet blamed are made together under the entry alone, and those Argo CD hides
// there are blamed on it. By change.i; a change a batch does not settle is left out (blamed
// alone), and so are those left at a managedFieldsManagers entry, which blame judges by the
// whole predicted object: the fields it takes from both sides are not where a batch reads.
func (m *mutation) blameAll(hidden []change) (map[int]verdict.RuleAt, error) {
	out := map[int]verdict.RuleAt{}
	if len(hidden) == 0 {
		return out, nil
	}
	rest := hidden
	for _, e := range m.s.entries() {
		if e.at == (verdict.RuleAt{}) || len(rest) == 0 {
			continue
		}
		if len(e.ManagedFieldsManagers) > 0 || e.override != "" && len(m.s.Overrides[e.override].IgnoreDifferences.ManagedFieldsManagers) > 0 {
			return out, nil
		}
		sub, strip := m.s.alone(e)
		d, apply := m.desired, setAll
		if strip {
			d = withoutAnnotatedIgnores(d)
			apply = func(u *unstructured.Unstructured, cs []change) bool {
				if !setAll(u, cs) {
					return false
				}
				*u = *withoutAnnotatedIgnores(u)
				return true
			}
		}
		base, err := Diff(d, m.live, sub)
		if err != nil {
			return nil, err
		}
		shown, ok, err := batchShows(d, m.live, sub, base, rest, apply)
		if err != nil || !ok {
			return out, err // the rest blamed alone
		}
		var next []change
		for k, c := range rest {
			if shown[k] {
				next = append(next, c)
			} else {
				out[c.i] = e.at
			}
		}
		rest = next
	}
	for _, c := range rest {
		out[c.i] = verdict.RuleAt{} // hidden under no entry alone
	}
	return out, nil
}

// single changes the value at p alone.
func (m *mutation) single(p fielddiff.Path) error {
	desired, live, s := m.desired, m.live, m.s
	old, _ := p.Get(desired.Object)
	drawn, hidden := false, (*unstructured.Unstructured)(nil)
	// A draw Argo CD's own normalisation takes for the old value (a base64 string decoding to the
	// same bytes) tests nothing: draw again, so that the verdict does not depend on the draw.
	for range 8 {
		value, ok := differentFrom(old, live.Object, fielddiff.ByKey(desired, p))
		mut := desired.DeepCopy()
		if !ok || !p.Set(mut.Object, value) {
			break
		}
		drawn = true
		read := fielddiff.ByKey(mut, p)
		shown, err := shows(mut, live, s, m.resolved, read)
		if err != nil {
			return err
		}
		if shown {
			break
		}
		seen, err := shows(withoutAnnotatedIgnores(mut), live, s.Plain(), m.plain, read)
		if err != nil {
			return err
		}
		if seen {
			hidden = mut
			break
		}
	}
	if drawn {
		m.v.Mutation++
	}
	if hidden != nil {
		return m.record(fielddiff.ByKey(desired, p), m.hidesChange(hidden, fielddiff.ByKey(hidden, p)))
	}
	return nil
}

// removals removes each map, list and value the manifest declares in turn: Argo CD shows a
// removal (from the last applied configuration) unless an ignore hides it. One finding for a
// field and what it holds: a removal is judged after those of its parents (a depth at a time),
// and the findings are recorded in the order of the paths.
func (m *mutation) removals() error {
	desired, live, s := m.desired, m.live, m.s
	paths := declared(desired.Object, nil)
	keyedOf := make([]fielddiff.Path, len(paths))
	byDepth := map[int][]int{}
	for i, p := range paths {
		keyedOf[i] = fielddiff.ByKey(desired, p)
		byDepth[len(p)] = append(byDepth[len(p)], i)
	}
	var removed []int // the removals found hidden
	covered := func(keyed fielddiff.Path) bool {
		near := func(q fielddiff.Path) bool { return q.HasPrefix(keyed) || keyed.HasPrefix(q) }
		return slices.ContainsFunc(m.recorded, near) || slices.ContainsFunc(removed, func(i int) bool { return near(keyedOf[i]) })
	}
	for _, depth := range slices.Sorted(maps.Keys(byDepth)) {
		batches := map[int][]change{}
		var alone []int
		for _, i := range byDepth[depth] {
			keyed := keyedOf[i]
			if covered(keyed) || keyRemoval(keyed) {
				continue
			}
			b := batchOf(keyed)
			if last := keyed[len(keyed)-1]; b < 0 || last.Index != nil {
				alone = append(alone, i) // an item of a list without keys: the next item takes its index
				continue
			}
			batches[b] = append(batches[b], change{at: paths[i], read: keyed, removal: true, i: i})
		}
		found := len(removed)
		unsettled, hidden, _, err := m.judgeBatches(batches, removeAll)
		if err != nil {
			return err
		}
		for _, c := range hidden {
			removed = append(removed, c.i)
		}
		alone = append(alone, unsettled...)
		slices.Sort(alone)
		for _, i := range alone {
			if slices.Contains(removed[found:], i) || covered(keyedOf[i]) {
				continue
			}
			mut := desired.DeepCopy()
			if !remove(mut.Object, paths[i]) {
				continue
			}
			// A removal Argo CD's diff fails on (a list item's merge key) is an error Argo CD
			// shows, not a change it hides.
			if shown, err := shows(mut, live, s, m.resolved, keyedOf[i]); err != nil || shown {
				continue
			}
			if seen, err := shows(withoutAnnotatedIgnores(mut), live, s.Plain(), m.plain, keyedOf[i]); err == nil && seen {
				removed = append(removed, i)
			}
		}
	}
	slices.Sort(removed)
	for _, i := range removed {
		mut := desired.DeepCopy()
		remove(mut.Object, paths[i])
		if err := m.record(keyedOf[i], m.hidesChange(mut, keyedOf[i])); err != nil {
			return err
		}
	}
	return nil
}

// judgeBatches judges each batch of changes (apply makes them), batches in order: settled counts
// the changes the batches settle, hidden are those of them Argo CD hides, and unsettled the
// indexes (change.i) of the others, to be made alone.
func (m *mutation) judgeBatches(batches map[int][]change, apply func(*unstructured.Unstructured, []change) bool) (unsettled []int, hidden []change, settled int, err error) {
	for _, b := range slices.Sorted(maps.Keys(batches)) {
		changes := batches[b]
		verdicts, err := batchJudge(m.desired, m.live, m.s, m.resolved, m.plain, changes, apply)
		if err != nil {
			return nil, nil, 0, err
		}
		for k, j := range verdicts {
			switch j {
			case judgedAlone:
				unsettled = append(unsettled, changes[k].i)
				continue
			case judgedHidden:
				hidden = append(hidden, changes[k])
			}
			settled++
		}
	}
	return unsettled, hidden, settled, nil
}
