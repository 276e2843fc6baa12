package synth

// A group collects the fields that end up in one rule, and makes the rule of them.

import (
	"maps"
	"slices"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// group collects the fields that end up in one rule.
type group struct {
	rule   Rule
	paths  map[string]fielddiff.Path
	at     map[string]map[pair.Identity]bool // path -> the resources with a finding there
	res    map[pair.Identity]bool
	evid   map[string]bool
	class  map[classify.Class]bool
	owners map[string]bool // of the Controller fields
	// evidAt, classAt, ownerAt: the evidence, classes and owners of the findings at each path (its
	// String, a whole list's for a field inside it): a rule's comment cites those of its own paths
	evidAt  map[string]map[string]bool
	classAt map[string]map[classify.Class]bool
	ownerAt map[string]map[string]bool
	// artifact is the kind's part of the rule for kapp's empty annotations map (artifactRule)
	artifact *Rule
	empty    map[string]bool // paths whose live value is an empty map
	nulls    map[string]bool // paths whose live value is null
	rewrites map[string]Rewrite
	// rewritten: the resources with rewrites, which a kind's rewrite rule names (a ytt rule kapp
	// would otherwise run on every resource of the kind, on every deploy)
	rewritten map[pair.Identity]bool
	folded    map[pair.Identity]bool // Secrets whose stringData the server stored in data
	// dropped: declared empty values the server drops, and the resources declaring each (Rule.Drop)
	dropped   map[string]fielddiff.Path
	droppedAt map[string]map[pair.Identity]bool
	// defaults: what the server's defaulting gives back of a declared scalar Git removes
	// (declaresAt)
	defaults *classify.Removals
}

// add records that resource id has a finding at path p.
func (g *group) add(id pair.Identity, p fielddiff.Path) {
	k := p.String()
	g.paths[k] = p
	if g.at[k] == nil {
		g.at[k] = map[pair.Identity]bool{}
	}
	g.at[k][id] = true
}

func get[K comparable](m map[K]*group, k K, mk func() Rule) *group {
	if g, ok := m[k]; ok {
		return g
	}
	g := &group{rule: mk(), paths: map[string]fielddiff.Path{}, at: map[string]map[pair.Identity]bool{}, res: map[pair.Identity]bool{}, evid: map[string]bool{}, class: map[classify.Class]bool{}, owners: map[string]bool{}, empty: map[string]bool{}, nulls: map[string]bool{}, rewrites: map[string]Rewrite{}, rewritten: map[pair.Identity]bool{}, folded: map[pair.Identity]bool{},
		dropped: map[string]fielddiff.Path{}, droppedAt: map[string]map[pair.Identity]bool{},
		evidAt: map[string]map[string]bool{}, classAt: map[string]map[classify.Class]bool{}, ownerAt: map[string]map[string]bool{}}
	m[k] = g
	return g
}

// rules turns a group into one plain rule and, if needed, one keyed (ytt) rule.
func (g *group) rules() []Rule {
	plain, keyed := g.rule, g.yttRule()
	for _, k := range sortedKeys(g.paths) {
		p := g.paths[k]
		if g.empty[k] {
			keyed.Empty = append(keyed.Empty, p)
		} else if fields, ok := p.Fields(); ok {
			plain.Paths = append(plain.Paths, fields)
		} else if g.nulls[k] {
			keyed.Nulls = append(keyed.Nulls, p)
		} else {
			keyed.Keyed = append(keyed.Keyed, p)
			keyed.ByKey = "a whole list item is no kapp copy path"
			if byIndex(p) {
				keyed.ByKey = "a copy by index would spread the controller's value to the other items"
			}
		}
	}
	return g.finish(append(handlerGated(plain), keyed)...)
}

var annotationsPath = fielddiff.FromFields([]string{"metadata", "annotations"})

// finish completes a group's rules with the group's evidence, dropping empty ones.
func (g *group) finish(rules ...Rule) []Rule {
	var out []Rule
	for _, r := range rules {
		if len(r.Paths)+len(r.Indexed) == 0 && !r.YTT() && r.Drop == nil {
			continue
		}
		r.Resources = byName(named(g.res, r.Matchers))
		evid, class, owners := g.evid, g.class, g.owners
		if keys := g.keysOf(r); len(keys) > 0 {
			evid, class, owners = map[string]bool{}, map[classify.Class]bool{}, map[string]bool{}
			for _, k := range keys {
				maps.Copy(evid, g.evidAt[k])
				maps.Copy(class, g.classAt[k])
				maps.Copy(owners, g.ownerAt[k])
			}
		}
		r.Evidence, r.Classes, r.Owners = sortedKeys(evid), slices.Sorted(maps.Keys(class)), sortedKeys(owners)
		out = append(out, r)
	}
	return out
}
