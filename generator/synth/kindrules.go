package synth

// A kind's rules: plain copies wherever kapp's copy can write the paths (list items by index
// included), a ytt rule selecting items by key only where it cannot.

import (
	"sort"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// kindRules turns a kind's group into rules for the resources it matches (every resource of the
// kind): plain copies wherever they are right, list items by index included; a ytt rule
// selecting items by key only for what a plain copy cannot express, and for the resources on
// which a plain copy would be wrong (then named by a rule of their own, excluded from the plain
// one). Empty maps and list items are decided apart: an injected sidecar should not cost the
// plain copy of securityContext.
func (g *group) kindRules(matched []classify.Resource) []Rule {
	plain, keyed := g.rule, g.rule
	keyed.FoldStringData = g.fold
	var extra []Rule
	if len(g.rewrites) > 0 { // exact values of the resources that hold them: a rule naming them
		rw := g.yttRule()
		rw.FoldStringData = false
		var ids []pair.Identity
		for id := range g.rewritten {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i].Less(ids[j]) })
		rw.Matchers = nil
		for _, id := range ids {
			rw.Matchers = append(rw.Matchers, Matcher{KindNamespaceName: &KindNamespaceName{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}})
		}
		extra = append(extra, rw)
	}
	var maps, items []fielddiff.Path // candidates: empty maps outside lists, paths through list items
	annotations := false             // an empty annotations map: a rule of its own
	for _, k := range sortedKeys(g.paths) {
		p := g.paths[k]
		fields, isFields := p.Fields()
		switch {
		case !isFields && !byIndex(p) && g.nulls[k]:
			keyed.Nulls = append(keyed.Nulls, p)
		case !isFields && !byIndex(p):
			keyed.Keyed = append(keyed.Keyed, p)
			keyed.ByKey = "a whole list item is no kapp copy path"
		case !isFields:
			items = append(items, p)
		case g.empty[k] && p.String() == "metadata.annotations":
			annotations = true
		case g.empty[k]:
			maps = append(maps, p)
		default:
			plain.Paths = append(plain.Paths, fields)
		}
	}
	for _, set := range [][]fielddiff.Path{maps, items} {
		if len(set) == 0 {
			continue
		}
		misfits := fitPlain(matched, uniqueByIndex(set), g.isEmpty)
		switch {
		case len(misfits) == 0:
			g.addPlain(&plain, set)
		case len(misfits) == len(matched):
			g.addKeyed(&keyed, set, misfits)
		default:
			// The resources a plain copy would be wrong on keep a ytt rule of their own.
			var names []Matcher
			for _, m := range misfits {
				names = append(names, Matcher{KindNamespaceName: &KindNamespaceName{Kind: m.id.Kind, Namespace: m.id.Namespace, Name: m.id.Name}})
			}
			others, exceptions := g.rule, g.rule
			others.Matchers = []Matcher{{And: &Matchers{Matchers: []Matcher{g.rule.Matchers[0], {Not: &Not{Matcher: Matcher{Any: &Matchers{Matchers: names}}}}}}}}
			exceptions.Matchers = names
			g.addPlain(&others, set)
			g.addKeyed(&exceptions, set, misfits)
			extra = append(extra, others, exceptions)
		}
	}
	if annotations {
		a := g.rule
		if misfits := fitPlain(matched, []fielddiff.Path{annotationsPath}, g.isEmpty); len(misfits) == 0 {
			a.Paths, a.Remove, a.RemoveMatchers = [][]string{{"metadata", "annotations"}}, historyAnnotations(), a.Matchers
			// only while the manifest declares no annotations: then it cannot hide one changed in Git
			a.Matchers = []Matcher{{And: &Matchers{Matchers: []Matcher{a.Matchers[0], {EmptyField: &EmptyField{Path: []string{"metadata", "annotations"}}}}}}}
			extra = append(extra, a)
		} else {
			g.addKeyed(&keyed, []fielddiff.Path{annotationsPath}, misfits)
		}
	}
	return g.finish(append([]Rule{plain, keyed}, extra...)...)
}

func (g *group) isEmpty(p fielddiff.Path) bool { return g.empty[p.String()] }

// addPlain adds paths to a plain copy rule.
func (g *group) addPlain(r *Rule, paths []fielddiff.Path) {
	for _, p := range paths {
		if fields, ok := p.Fields(); ok {
			r.Paths = append(r.Paths, fields)
		} else {
			r.Indexed = append(r.Indexed, p)
		}
	}
}

// addKeyed adds paths to a ytt rule, saying why they are not plain copies.
func (g *group) addKeyed(r *Rule, paths []fielddiff.Path, misfits []misfit) {
	for _, p := range paths {
		if g.isEmpty(p) {
			r.Empty = append(r.Empty, p)
		} else {
			r.Keyed = append(r.Keyed, p)
		}
	}
	why := byKeyWhy(misfits)
	if r.ByKey != "" {
		why = r.ByKey + "; " + why
	}
	r.ByKey = why
}

// yttRule is the group's rule with what only ytt can do: values rewritten to their stored form,
// Secret stringData folded into data.
func (g *group) yttRule() Rule {
	r := g.rule
	for _, k := range sortedKeys(g.rewrites) {
		r.Rewrites = append(r.Rewrites, g.rewrites[k])
	}
	r.FoldStringData = g.fold
	return r
}

// historyAnnotations are the paths of kapp's history annotations, which kapp removes from both
// sides before diffing but which a copy of metadata.annotations from the live object brings back.
func historyAnnotations() [][]string {
	var out [][]string
	for _, k := range kappconv.HistoryAnnotations() {
		out = append(out, []string{"metadata", "annotations", k})
	}
	return out
}
