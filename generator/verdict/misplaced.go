package verdict

// Values a copy by index lands on another list item than the one the live object holds them in.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// misplaced returns the values kapp's rebase under the rules in force writes into an item of a
// keyed list (containers by name, env by name, ports by containerPort and protocol) that the
// live object holds in another item: kapp's copy paths select items by index ({allIndexes:
// true}, {index: N}), pairing item i of the manifest with item i of the live object whatever
// their keys, so once Git inserts, removes, renames or reorders items the copy gives an item
// another's value (newcomer10 N10-9: a container inserted first took the old first container's
// imagePullPolicy, IfNotPresent, where the API server defaults Always for its untagged image; an
// env var inserted first took the next one's valueFrom.fieldRef.apiVersion beside its value,
// an object the API server refuses), and the item the value belongs to, now at another index,
// lacks it (a residual ghost diff that alone did not say why). A value the API server's
// defaulting gives the item on its own (a renamed port's protocol TCP) changes nothing, and is
// left out. kapp's engine says what the object it applies holds (verify.Rebased, under both
// bases); only resources whose lists changed their items (a finding at a whole item, a reorder,
// or items inserted into an atomic list) are asked, where the items can face others.
func (v *Verdict) misplaced(in Input, configs []*unstructured.Unstructured) ([]Hidden, error) {
	if len(in.Rules) == 0 {
		return nil, nil
	}
	var asked []classify.Resource
	for _, r := range in.Report.Resources {
		if slices.ContainsFunc(r.Findings, func(f classify.Finding) bool {
			return f.Reordered || f.Inserted != nil || len(f.Path) > 0 && f.Path[len(f.Path)-1].Key != nil || slices.ContainsFunc(f.Path, isIndex)
		}) {
			asked = append(asked, r)
		}
	}
	if len(asked) == 0 {
		return nil, nil
	}
	type found struct {
		path, from fielddiff.Path // by key: where the value lands, the live item it comes from
		index      int            // the item's index on both sides
		list       fielddiff.Path // the list, by key
		other      int            // an atomic list's: the manifest's index of the live item at index; -1 for a keyed list
	}
	defaults, err := classify.NewRemovals(in.Report)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	byResource := make([]map[string]found, len(asked))
	err = verify.Rebased(len(asked), func(i int) (verify.Pair, error) {
		desired, live, err := asked[i].Objects()
		if err != nil {
			return verify.Pair{}, err
		}
		p := pairOf(desired, live)
		p.Beside = v.beside[asked[i].ID]
		return p, nil
	}, configs, func(i int, _ verify.Base, obj map[string]any, err error) {
		if err != nil || obj == nil {
			return // kapp failing on the pair is the engine's finding
		}
		desired, live, derr := asked[i].Objects()
		if derr != nil {
			return
		}
		applied := &unstructured.Unstructured{Object: asDecoded(obj)}
		deltas, derr := fielddiff.Diff(applied, desired.Unstructured)
		if derr != nil {
			return
		}
		onLive, onApplied := fielddiff.NewLookup(live.Object), fielddiff.NewLookup(applied.Object)
		for _, d := range deltas {
			if d.Change != fielddiff.Removed || d.Noise != "" || !slices.ContainsFunc(d.Path, func(pe fieldpath.PathElement) bool { return pe.Key != nil || pe.Index != nil }) {
				continue // only what the rules added to the manifest, inside a list's item
			}
			for _, leaf := range leaves(d.Path, d.Desired) {
				if list, index, other, ok := moved(leaf.path, desired.Object, live.Object); ok {
					// an atomic list's item: the copy by index always takes the live value at the
					// same index, which is another item's when the items moved (newcomer12 N12-2)
					if dv, set, known := defaults.Gives(desired.Unstructured, leaf.path); known && set && fielddiff.Equal(dv, leaf.v) {
						continue
					}
					if lv, ok := onLive.Get(leaf.path); !ok || !fielddiff.Equal(lv, leaf.v) {
						continue // not the live value at the same index: not a copy by index
					}
					mu.Lock()
					if byResource[i] == nil {
						byResource[i] = map[string]found{}
					}
					byResource[i][leaf.path.String()] = found{path: leaf.path, from: leaf.path, index: index, list: list, other: other}
					mu.Unlock()
					continue
				}
				if lv, ok := onLive.Get(leaf.path); ok && fielddiff.Equal(lv, leaf.v) {
					continue // the live object holds it in the same item
				}
				at := onApplied.ByIndex(leaf.path)
				lv, ok := at.Get(live.Object)
				if !ok || !fielddiff.Equal(lv, leaf.v) {
					continue // not the live value at the same index: not a copy by index
				}
				if dv, set, known := defaults.Gives(desired.Unstructured, leaf.path); known && set && fielddiff.Equal(dv, leaf.v) {
					continue // the value the API server gives the item on its own (a port's protocol TCP)
				}
				from := fielddiff.ByKey(live.Unstructured, at)
				list, index := firstOther(leaf.path, from, at)
				if list == nil {
					continue
				}
				mu.Lock()
				if byResource[i] == nil {
					byResource[i] = map[string]found{}
				}
				byResource[i][leaf.path.String()] = found{path: leaf.path, from: from, index: index, list: list, other: -1}
				mu.Unlock()
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var out []Hidden
	blame := newBlame(in)
	for i, r := range asked {
		keys := make([]string, 0, len(byResource[i]))
		for k := range byResource[i] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f := byResource[i][k]
			h := Hidden{Resource: r.ID, Path: k, Rewritten: true}
			h.Rule, h.At = blame.writer(r, f.path)
			n := len(f.list)
			if f.other >= 0 {
				h.How = fmt.Sprintf("the object kapp applies holds here the value the live object holds at %s: the rule copies by index, and item %d of %s (a list without merge keys, whose items are told apart by their content) is live the item the manifest declares at index %d (items inserted, removed or reordered in Git); the API server's defaulting gives this item another value there, or none (a ServiceAccount subject's apiGroup, a Pod limit's default, which it refuses)",
					escape.Text(f.from.String()), f.index, escape.Text(f.list.String()), f.other)
				h.Misplaced = true
				out = append(out, h)
				continue
			}
			h.How = fmt.Sprintf("the object kapp applies holds here the value the live object holds at %s: the rule copies by index, and item %d of %s is %s live, %s desired (items inserted, removed, renamed or reordered in Git); the API server's defaulting gives this item another value there, or none (an image's pull policy; a fieldRef beside a value, which it refuses), and the item the value belongs to lacks it",
				escape.Text(f.from.String()), f.index, escape.Text(f.list.String()), escape.Text(keyOf(f.from[n])), escape.Text(keyOf(f.path[n])))
			h.Misplaced = true
			out = append(out, h)
		}
	}
	return out, nil
}

func isIndex(pe fieldpath.PathElement) bool { return pe.Index != nil }

// moved finds, walking p, the first list item selected by index (an atomic list's) that is
// another item live than in the manifest: the live item at that index is not the manifest's
// there (it lacks or changes a value the manifest's declares) but is the manifest's item at
// another index (other), which holds all its declared values; an item Git edited in place
// matches no other item, and keeps what the copy gives it.
func moved(p fielddiff.Path, desired, live map[string]any) (list fielddiff.Path, index, other int, ok bool) {
	for j, pe := range p {
		if pe.Key != nil || pe.Value != nil {
			return nil, 0, 0, false // a keyed list's item: matched by key (the caller's other case)
		}
		if pe.Index == nil {
			continue
		}
		dv, dok := p[:j].Get(desired)
		lv, lok := p[:j].Get(live)
		dl, dlist := dv.([]any)
		ll, llist := lv.([]any)
		i := *pe.Index
		if !dok || !lok || !dlist || !llist || i >= len(dl) || i >= len(ll) {
			return nil, 0, 0, false
		}
		if !fielddiff.Holds(ll[i], dl[i]) {
			for k := range dl {
				if k != i && fielddiff.Holds(ll[i], dl[k]) {
					return p[:j], i, k, true
				}
			}
		}
	}
	return nil, 0, 0, false
}

// leaf is a value at its path (by key).
type leaf struct {
	path fielddiff.Path
	v    any
}

// leaves are the scalars, lists and empty maps under v at p: kapp's copy writes a leaf and makes
// the maps above it, so a subtree the rules added is compared leaf by leaf.
func leaves(p fielddiff.Path, v any) []leaf {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return []leaf{{p, v}}
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []leaf
	for _, k := range names {
		out = append(out, leaves(append(slices.Clip(p), fieldpath.PathElement{FieldName: &k}), m[k])...)
	}
	return out
}

// firstOther is the first list, walking to, where the item p selects (by key) differs from the
// one from selects (by key, the live item at the same index), with that index (by index, at);
// nil when they agree.
func firstOther(p, from, at fielddiff.Path) (fielddiff.Path, int) {
	for j := range min(len(p), len(from), len(at)) {
		if p[j].Key != nil && !p[j].Equals(from[j]) && at[j].Index != nil {
			return p[:j], *at[j].Index
		}
	}
	return nil, 0
}

// keyOf names a list item as findings do (name=app).
func keyOf(pe fieldpath.PathElement) string {
	s := fielddiff.Path{pe}.String()
	return strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
}

// writer names the rules whose step of kapp's rebase of the manifest (with the Configs in force)
// wrote the value at p (by key): a copy from new first keeps what the manifest declares, but
// writes where it declares nothing, which is where a copy by index lands on another item.
func (b *blame) writer(r classify.Resource, p fielddiff.Path) (string, RuleAt) {
	x := b.resource(r)
	var names []string
	var at RuleAt
	for i, rule := range x.rules {
		if x.rewrote(i, p) {
			if len(names) == 0 {
				at = rule.At
			}
			names = append(names, rule.At.String()+" ("+rule.Describe()+")")
		}
	}
	if len(names) == 0 {
		return "the rules in force together", RuleAt{}
	}
	return strings.Join(names, "; "), at
}
