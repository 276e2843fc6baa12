package argocd

// The mutation check of a resource: each value the manifest declares changed in turn, away from
// the live object's value, and each map or list it declares removed, together where the changes
// cannot meet (batch.go).

import (
	"maps"
	"slices"

	gdiff "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// differentFrom is a mutation of v (verdict.MutateAwayFrom) that is not the live object's value
// at p (by key): a change to the live value is no change Argo CD could show. False when there is
// none (a bool whose other value is live's).
func differentFrom(v any, live map[string]any, p fielddiff.Path) (any, bool) {
	have, inLive := p.Get(live)
	m, _, away := verdict.MutateAwayFrom(v, have, inLive)
	return m, away
}

// scalars are the paths (by index) of the scalar values obj declares, but for the object's
// identity (apiVersion, kind, metadata.name and metadata.namespace) and status.
func scalars(v any, at fielddiff.Path) []fielddiff.Path {
	var out []fielddiff.Path
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := with(at, fieldpath.PathElement{FieldName: &k})
			if identity(p) {
				continue
			}
			out = append(out, scalars(t[k], p)...)
		}
	case []any:
		for i := range t {
			out = append(out, scalars(t[i], with(at, fieldpath.PathElement{Index: &i}))...)
		}
	case nil:
	default:
		out = append(out, at)
	}
	return out
}

// declared are the paths (by index) of every map entry and list item obj declares below its top
// level, but for the object's identity and status, parents before their children.
func declared(v any, at fielddiff.Path) []fielddiff.Path {
	var out []fielddiff.Path
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			p := with(at, fieldpath.PathElement{FieldName: &k})
			if identity(p) || p.String() == "metadata" {
				continue
			}
			out = append(out, p)
			out = append(out, declared(t[k], p)...)
		}
	case []any:
		for i := range t {
			p := with(at, fieldpath.PathElement{Index: &i})
			out = append(out, p)
			out = append(out, declared(t[i], p)...)
		}
	}
	return out
}

// remove deletes the value at p (by index) from obj, reporting whether there was one.
func remove(obj map[string]any, p fielddiff.Path) bool {
	if len(p) == 0 {
		return false
	}
	var parent any = obj
	if len(p) > 1 {
		var ok bool
		if parent, ok = p[:len(p)-1].Get(obj); !ok {
			return false
		}
	}
	last := p[len(p)-1]
	switch t := parent.(type) {
	case map[string]any:
		if last.FieldName == nil {
			return false
		}
		if _, ok := t[*last.FieldName]; !ok {
			return false
		}
		delete(t, *last.FieldName)
		return true
	case []any:
		if last.Index == nil || *last.Index >= len(t) || len(p) < 2 {
			return false
		}
		return p[:len(p)-1].Set(obj, slices.Delete(slices.Clone(t), *last.Index, *last.Index+1))
	}
	return false
}

func identity(p fielddiff.Path) bool {
	switch s := p.String(); s {
	case "apiVersion", "kind", "metadata.name", "metadata.namespace", "status":
		return true
	}
	return false
}

// mutation is the mutation check of one resource under s, its findings recorded in v.
type mutation struct {
	r             classify.Resource
	desired, live *unstructured.Unstructured
	s             Settings
	// resolved and plain are Argo CD's verdicts on the manifest under s and without ignores.
	resolved, plain *gdiff.DiffResult
	v               *Verification
	recorded        []fielddiff.Path // the paths (by key) of the findings recorded
}

// record records the change at keyed the ignores hide; hides tells whether Argo CD hides it under
// some of the ignores (for the entry to blame).
func (m *mutation) record(keyed fielddiff.Path, hides func(sub Settings, strip bool) (bool, error)) error {
	m.recorded = append(m.recorded, keyed)
	problem := Problem{Resource: m.r.ID, Path: keyed.String()}
	if f, ok := explaining(m.r, keyed); ok {
		problem.Class = f.Label()
	}
	to := &m.v.Hidden
	if verdict.Controlled(m.r, m.desired.Object, keyed) {
		to = &m.v.Masked
	}
	if slices.ContainsFunc(*to, func(q Problem) bool { return q.Resource == problem.Resource && q.Path == problem.Path }) {
		return nil
	}
	if to == &m.v.Hidden {
		at, err := m.s.blame(hides)
		if err != nil {
			return err
		}
		problem.At = at
	}
	*to = append(*to, problem)
	return nil
}

// hidesChange: under sub, Argo CD shows mut (a declared value changed in turn) as no change
// against live; strip: with the manifest's own ignore annotation out of force.
func (m *mutation) hidesChange(mut *unstructured.Unstructured) func(Settings, bool) (bool, error) {
	return func(sub Settings, strip bool) (bool, error) {
		d, changed := m.desired, mut
		if strip {
			d, changed = withoutAnnotatedIgnores(d), withoutAnnotatedIgnores(changed)
		}
		base, err := Diff(d, m.live, sub)
		if err != nil {
			return false, err
		}
		shown, err := shows(changed, m.live, sub, base)
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
	batchable := m.s.batchable(desired)
	batches := map[int][]change{}
	var alone []int // by index in values
	held, taken := fielddiff.NewLookup(desired.DeepCopy().Object), map[string]bool{}
	for i, p := range values {
		keyed := fielddiff.ByKey(desired, p)
		b := batchOf(keyed)
		if !batchable || b < 0 {
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
		mut := desired.DeepCopy()
		c.at.Set(mut.Object, c.value)
		if err := m.record(fielddiff.ByKey(desired, c.at), m.hidesChange(mut)); err != nil {
			return err
		}
	}
	return nil
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
		shown, err := shows(mut, live, s, m.resolved)
		if err != nil {
			return err
		}
		if shown {
			break
		}
		seen, err := shows(withoutAnnotatedIgnores(mut), live, s.Plain(), m.plain)
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
		return m.record(fielddiff.ByKey(desired, p), m.hidesChange(hidden))
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
	batchable := s.batchable(desired)
	ignored, managers := s.ignoredPaths(desired)
	nearIgnore := func(keyed fielddiff.Path) bool {
		return managers || slices.ContainsFunc(ignored, func(q fielddiff.Path) bool { return q.HasPrefix(keyed) || keyed.HasPrefix(q) })
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
			if last := keyed[len(keyed)-1]; !batchable || b < 0 || last.Index != nil || nearIgnore(keyed) {
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
			if shown, err := shows(mut, live, s, m.resolved); err != nil || shown {
				continue
			}
			if seen, err := shows(withoutAnnotatedIgnores(mut), live, s.Plain(), m.plain); err == nil && seen {
				removed = append(removed, i)
			}
		}
	}
	slices.Sort(removed)
	for _, i := range removed {
		mut := desired.DeepCopy()
		remove(mut.Object, paths[i])
		if err := m.record(keyedOf[i], m.hidesChange(mut)); err != nil {
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
