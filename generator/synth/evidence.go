package synth

// What each rule's comment cites: the classes, owners and evidence of the findings at its own
// paths, not of every finding of its kind or resource.

import (
	"slices"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// note records f's class, owner and evidence at its path, and at the whole value holding it when
// a rule copies that whole.
func (g *group) note(f classify.Finding) {
	keys := []string{f.Path.String()}
	if f.Whole != nil {
		keys = append(keys, f.Whole.String())
	}
	for _, k := range keys {
		add(g.evidAt, k, evidenceSummary(f))
		add(g.classAt, k, f.Class)
		if f.Class == classify.Controller {
			add(g.ownerAt, k, f.Owner)
		}
	}
}

func add[V comparable](m map[string]map[V]bool, k string, v V) {
	if m[k] == nil {
		m[k] = map[V]bool{}
	}
	m[k][v] = true
}

// mergeAt adds the sets of from to those of into, key by key.
func mergeAt[V comparable](into, from map[string]map[V]bool) {
	for k, set := range from {
		for v := range set {
			add(into, k, v)
		}
	}
}

// keysOf returns the paths (as noted) whose findings rule r removes.
func (g *group) keysOf(r Rule) []string {
	var keys []string
	for _, fields := range r.Paths {
		keys = append(keys, fielddiff.FromFields(fields).String())
	}
	indexed := map[string]bool{}
	for _, p := range append(slices.Clip(r.Indexed), r.Items...) {
		indexed[indexKey(p)] = true
	}
	for _, k := range sortedKeys(g.paths) {
		if _, fields := g.paths[k].Fields(); !fields && indexed[indexKey(g.paths[k])] {
			keys = append(keys, k)
		}
	}
	for _, ps := range [][]fielddiff.Path{r.Keyed, r.Empty, r.Nulls} {
		for _, p := range ps {
			keys = append(keys, p.String())
		}
	}
	for _, rw := range r.Rewrites {
		keys = append(keys, rw.Path.String())
	}
	if r.Drop != nil {
		keys = append(keys, r.Drop.String())
	}
	if r.FoldStringData {
		keys = append(keys, "stringData")
	}
	return keys
}
