package argocd

// The mutation check's changes made together. Each declared value changed alone, and each map
// entry or list item removed alone, cost one StateDiff of the whole object: quadratic in the
// values of one resource. Where the changes cannot meet in Argo CD's comparison they are made
// together, in one StateDiff per batch under the ignores, and Argo CD's verdict on each is read at
// its own path of the predicted live object; only a change that comes out not shown is judged
// again (a second batch without the ignores, then alone where that does not settle it), so the
// verdict is the one the changes made alone give.
//
// The changes meet where an ignore selects by value (a jq expression may read any field: a value
// changed beside another may change what it selects; a batch is then not settled, taken.go),
// where a change moves an item or another change (a merge key, a set's value: a value of the item
// changed beside its key would belong to another item), and in metadata (annotations Argo CD
// reads: the ignore annotation, compare options, tracking). Those are made alone, or in batches
// of their own: the identity changes of one depth together, each in an item of its own.

import (
	"encoding/json"
	"slices"
	"sync/atomic"

	gdiff "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// batchOf is the batch a change at keyed (the path by key, before the change) goes in: -1 for
// none (made alone), 0 for the changes of values, 1+depth for the changes of an item's identity
// (a merge key or a set's value) under depth keyed items.
func batchOf(keyed fielddiff.Path) int {
	if len(keyed) == 0 || keyed[0].FieldName != nil && *keyed[0].FieldName == "metadata" {
		return -1
	}
	last := keyed[len(keyed)-1]
	identity := last.Value != nil
	if !identity && last.FieldName != nil && len(keyed) > 1 && keyed[len(keyed)-2].Key != nil {
		for _, f := range *keyed[len(keyed)-2].Key {
			identity = identity || f.Name == *last.FieldName
		}
	}
	if !identity {
		return 0
	}
	depth := 1
	for _, pe := range keyed[:len(keyed)-1] {
		if pe.Key != nil || pe.Value != nil {
			depth++
		}
	}
	return depth
}

// change is one change of a batch: the path (by index) in the manifest, the value set there or its
// removal, and the path by key where its effect is read.
type change struct {
	at      fielddiff.Path
	value   any
	read    fielddiff.Path
	removal bool
	i       int // the change's index in the caller's list
}

// batchShows is Argo CD's verdict under s on each of the changes made together in desired
// (applied by apply) against base, Argo CD's verdict on desired: shown where the predicted live
// object holds at the change's path other than base's. ok is false when the batch does not
// settle it (Argo CD fails on the batch, or shows it in sync where base was not): the changes are
// then judged alone.
func batchShows(desired, live *unstructured.Unstructured, s Settings, base *gdiff.DiffResult, changes []change,
	apply func(*unstructured.Unstructured, []change) bool) (shown []bool, ok bool, err error) {
	mut := desired.DeepCopy()
	if !apply(mut, changes) {
		return nil, false, nil
	}
	if n, err := s.ignorer(); err != nil || n != nil {
		if alike, err := s.takesAlike(n, desired, mut, changes); err != nil || !alike {
			return nil, false, nil //nolint:nilerr // judged alone, where the error is the change's
		}
	}
	res, err := Diff(mut, live, s)
	if err != nil || !res.Modified && base.Modified {
		return nil, false, nil //nolint:nilerr // judged alone, where the error is the change's
	}
	shown = make([]bool, len(changes))
	if !res.Modified {
		return shown, true, nil
	}
	// against base's predicted live object where base is OutOfSync; else against a comparison
	// that is, of desired with a label of its own added (control): a comparison in sync predicts
	// the live object as it is, ignored fields included, not as a comparison OutOfSync does
	against := base.PredictedLive
	if !base.Modified {
		ctl := desired.DeepCopy()
		labels := ctl.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[controlLabel] = "x"
		ctl.SetLabels(labels)
		control, err := Diff(ctl, live, s)
		if err != nil || !control.Modified {
			return nil, false, nil //nolint:nilerr // judged alone
		}
		against = control.PredictedLive
	}
	var after, before map[string]any
	if err := json.Unmarshal(res.PredictedLive, &after); err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal(against, &before); err != nil {
		return nil, false, err
	}
	a, b := fielddiff.NewLookup(after), fielddiff.NewLookup(before)
	at := make([]fielddiff.Path, len(changes))
	for k, c := range changes {
		at[k] = c.read
	}
	outOfSync, err := outOfSyncAt(res, at...)
	if err != nil {
		return nil, false, err
	}
	// Shown: Argo CD predicts the changed value there (the value removed: nothing) where the
	// reference does not, or shows the changed field OutOfSync (outOfSyncAt). A value an
	// ignore removes is predicted as the live one, or not at all.
	for k, c := range changes {
		va, inA := a.Get(c.read)
		vb, inB := b.Get(c.read)
		if c.removal {
			shown[k] = !inA && inB || outOfSync[c.read.String()]
		} else {
			shown[k] = inA && fielddiff.Equal(va, c.value) && !(inB && fielddiff.Equal(vb, c.value)) || outOfSync[c.read.String()]
		}
	}
	// The changes met if the predicted objects differ anywhere else (a value Argo CD's
	// normalisation cannot read changes how it compares the whole object): not settled.
	reads, above := map[string]bool{controlPath.String(): true}, map[string]bool{}
	for _, c := range changes {
		reads[c.read.String()] = true
		for n := range len(c.read) {
			above[c.read[:n].String()] = true
		}
	}
	var differ []fielddiff.Path
	differing(after, before, nil, &differ)
	u := &unstructured.Unstructured{Object: after}
	for _, p := range differ {
		d := fielddiff.ByKey(u, p)
		met := !above[d.String()]
		for n := 1; n <= len(d) && met; n++ {
			met = !reads[d[:n].String()]
		}
		if met {
			return nil, false, nil
		}
	}
	return shown, true, nil
}

// controlLabel is the label batchShows adds to make a comparison OutOfSync: no change of a batch
// is read there.
const controlLabel = "rebasegen.dev/mutation-check"

var controlPath = fielddiff.FromFields([]string{"metadata", "labels", controlLabel})

// setAll sets each change's value in u.
func setAll(u *unstructured.Unstructured, changes []change) bool {
	for _, c := range changes {
		if !c.at.Set(u.Object, c.value) {
			return false
		}
	}
	return true
}

// removeAll removes each change's path from u, the last first (paths of one depth: an item
// removed leaves the indexes of the items before it).
func removeAll(u *unstructured.Unstructured, changes []change) bool {
	for _, c := range slices.Backward(changes) {
		if !remove(u.Object, c.at) {
			return false
		}
	}
	return true
}

// diffs counts Diff's comparisons, for the tests of the mutation check's cost.
var diffs atomic.Int64

// aloneBelow is the size of an unsettled batch whose changes are made alone rather than halved.
const aloneBelow = 4

// judged is the mutation check's verdict on a change made in a batch.
type judged int

const (
	judgedNot    judged = iota // not hidden: Argo CD shows it under the ignores, or shows it without them neither
	judgedHidden               // Argo CD shows it without the ignores, not under them
	judgedAlone                // the batch does not settle it: made alone
)

// batchJudge judges changes made together (apply makes them): each Argo CD shows under s is not
// hidden; of the others, made together again, each Argo CD shows without the ignores is hidden.
// A value changed that neither shows is made alone (drawn again there: a draw Argo CD's own
// normalisation takes for the old value tests nothing); a removal that neither shows is not
// hidden, as when made alone.
func batchJudge(desired, live *unstructured.Unstructured, s Settings, resolved, plain *gdiff.DiffResult, changes []change,
	apply func(*unstructured.Unstructured, []change) bool) ([]judged, error) {
	out := make([]judged, len(changes))
	alone := func(ks []int) []judged {
		for _, k := range ks {
			out[k] = judgedAlone
		}
		return out
	}
	all := make([]int, len(changes))
	for k := range all {
		all[k] = k
	}
	shown, ok, err := batchShows(desired, live, s, resolved, changes, apply)
	if err != nil {
		return nil, err
	}
	if !ok {
		// not settled: each half judged apart, down to a few changes, judged alone (halves of
		// those cost more comparisons than the changes made alone)
		if len(changes) <= aloneBelow {
			return alone(all), nil
		}
		half := len(changes) / 2
		first, err := batchJudge(desired, live, s, resolved, plain, changes[:half], apply)
		if err != nil {
			return nil, err
		}
		second, err := batchJudge(desired, live, s, resolved, plain, changes[half:], apply)
		return append(first, second...), err
	}
	var rest []int
	var again []change
	for k, sh := range shown {
		if !sh {
			rest, again = append(rest, k), append(again, changes[k])
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	bare := func(u *unstructured.Unstructured, cs []change) bool {
		if !apply(u, cs) {
			return false
		}
		*u = *withoutAnnotatedIgnores(u)
		return true
	}
	seen, ok, err := batchShows(withoutAnnotatedIgnores(desired), live, s.Plain(), plain, again, bare)
	if err != nil || !ok {
		return alone(rest), err
	}
	for j, k := range rest {
		switch {
		case seen[j]:
			out[k] = judgedHidden
		case !changes[k].removal:
			out[k] = judgedAlone
		}
	}
	return out, nil
}

// keyRemoval reports whether keyed, a removal's path by key, is a merge key of its list item: the
// removal changes which item it is (server-side apply's merge reads the key's schema default in its
// place; the strategic merge patch Argo CD's diff runs with a last applied configuration refuses
// the item), the identity change the mutation check makes by changing the key's value. It is not
// made again (made alone, it cost one comparison of the whole object per item of the list).
func keyRemoval(keyed fielddiff.Path) bool {
	if len(keyed) < 2 || keyed[len(keyed)-2].Key == nil || keyed[len(keyed)-1].FieldName == nil {
		return false
	}
	name := *keyed[len(keyed)-1].FieldName
	return slices.ContainsFunc(*keyed[len(keyed)-2].Key, func(f value.Field) bool { return f.Name == name })
}

// identityDraw is a value for the change of an item's identity at p (by index; keyed, by key)
// that names an item desired does not hold and no other change of the batch names (taken, by the
// item's path): two items of one key, or an item named as another, would meet. ok is false when
// none is found in a few draws.
func identityDraw(desired *unstructured.Unstructured, held *fielddiff.Lookup, live map[string]any, p, keyed fielddiff.Path, taken map[string]bool) (any, bool) {
	old, _ := p.Get(desired.Object)
	for range 8 {
		value, ok := differentFrom(old, live, keyed)
		if !ok {
			return nil, false
		}
		p.Set(desired.Object, value)
		read := fielddiff.ByKey(desired, p)
		p.Set(desired.Object, old) // desired as it was: only the item's new name is wanted
		item := read
		if read[len(read)-1].Value == nil {
			item = read[:len(read)-1]
		}
		if _, held := held.Get(item); !held && !taken[item.String()] {
			taken[item.String()] = true
			return value, true
		}
	}
	return nil, false
}
