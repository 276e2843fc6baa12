package synth

// A kind's rules: plain copies wherever kapp's copy can write the paths (list items by index
// included), a ytt rule selecting items by key only where it cannot.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// kindRules turns a kind's group into rules for the resources it matches (every resource of the
// kind): plain copies wherever they are right, list items by index included; a ytt rule
// selecting items by key only for what a plain copy cannot express, and for the resources on
// which a plain copy would be wrong (then named by a rule of their own, excluded from the plain
// one). Empty maps and list items are decided apart: an injected sidecar should not cost the
// plain copy of securityContext.
func (g *group) kindRules(matched []classify.Resource) []Rule {
	plain, keyed := g.rule, g.rule
	var extra []Rule
	var rewritten []Matcher // the resources the rewrite rule names, one matcher each
	unfolded := len(g.folded) > 0
	if len(g.rewrites) > 0 { // exact values of the resources that hold them: a rule naming them
		rw := g.yttRule()
		ids := sortedIDs(g.rewritten)
		// the rewritten Secrets fold their stringData in the same rule: one ytt run, not two
		rw.FoldStringData, unfolded = false, false
		for _, id := range ids {
			rewritten = append(rewritten, nameOf(id))
			rw.FoldStringData = rw.FoldStringData || g.folded[id]
		}
		for id := range g.folded {
			unfolded = unfolded || !g.rewritten[id]
		}
		rw.Matchers = names(ids, g.kind)
		extra = append(extra, rw)
	}
	var maps, items []fielddiff.Path // candidates: empty maps outside lists, paths through list items
	var byItem []fielddiff.Path      // defaults of an atomic list's item chosen by its fields (byItem)
	dependent := g.byItem(matched)
	annotations := false // an empty annotations map: a rule of its own
	for _, k := range sortedKeys(g.paths) {
		p := g.paths[k]
		fields, isFields := p.Fields()
		switch {
		case !isFields && !byIndex(p) && g.nulls[k]:
			keyed.Nulls = append(keyed.Nulls, p)
		case !isFields && !byIndex(p):
			keyed.Keyed = append(keyed.Keyed, p)
			keyed.ByKey = "a whole list item is no kapp copy path"
		case !isFields && dependent[indexKey(p)]:
			byItem = append(byItem, p)
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
	var annotationsSet []fielddiff.Path
	if annotations {
		annotationsSet = []fielddiff.Path{annotationsPath}
	}
	// who has a finding at each path as a plain copy writes it (every item)
	atIndex := map[string]map[pair.Identity]bool{}
	for k, p := range g.paths {
		ik := indexKey(p)
		for id := range g.at[k] {
			if atIndex[ik] == nil {
				atIndex[ik] = map[pair.Identity]bool{}
			}
			atIndex[ik][id] = true
		}
	}
	needs := func(id pair.Identity, p fielddiff.Path) bool { return atIndex[indexKey(p)][id] }
	extra = append(extra, g.itemRules(byItem, matched, atIndex)...)
	fit := fitPlain(matched, [][]fielddiff.Path{uniqueByIndex(maps), uniqueByIndex(items), annotationsSet}, g.isEmpty, needs, g.declaresAt)
	for i, set := range [][]fielddiff.Path{maps, items} {
		if len(set) == 0 {
			continue
		}
		misfits := fit[i].misfits
		kindWide, named := g.declaredApart(set, fit[i], atIndex, matched)
		if len(misfits) == 0 {
			g.addPlain(&plain, kindWide)
			extra = append(extra, named...)
			continue
		}
		others, exceptions := g.split(misfits)
		if own := g.own(set, misfits); len(own) > 0 {
			g.addKeyed(&exceptions, own, misfits)
		}
		if len(misfits) < len(matched) {
			// only the paths where a resource of the plain rule has a finding: one only a misfit
			// has would make a rule matching none of the objects once gated
			g.addPlain(&others, g.notOnly(kindWide, misfits))
			extra = append(extra, others)
		}
		extra = append(append(extra, named...), exceptions)
	}
	if annotations {
		// A misfit holds annotations kapp does not strip (a webhook's, Helm's), so it shows no
		// empty annotations map: it needs no rule, and the copy must not take those annotations
		// (the copies of the ghost ones among them add the map where they need it).
		a, misfits := g.rule, fit[2].misfits
		if len(misfits) > 0 {
			a, _ = g.split(misfits)
		}
		if len(misfits) < len(matched) {
			// one rule for every kind (artifactRule): the kind's part of it
			ids := map[pair.Identity]bool{}
			for id := range g.at[annotationsPath.String()] {
				if !slices.ContainsFunc(misfits, func(m misfit) bool { return m.id == id }) {
					ids[id] = true
				}
			}
			a.Resources = byName(ids)
			a.Evidence = sortedKeys(g.evidAt[annotationsPath.String()])
			for c := range g.classAt[annotationsPath.String()] {
				a.Classes = append(a.Classes, c)
			}
			slices.Sort(a.Classes)
			g.artifact = &a
		}
	}
	if unfolded {
		// only the Secrets whose manifest holds stringData run this ytt rule (kapp's copy cannot
		// move a value from one field into another, encoded), except those the rewrite rule folds
		f := g.rule
		f.FoldStringData = true
		ms := []Matcher{g.rule.Matchers[0], {Not: &Not{Matcher: Matcher{EmptyField: &EmptyField{Path: Keys("stringData")}}}}}
		if len(rewritten) > 0 {
			ms = append(ms, Matcher{Not: &Not{Matcher: Matcher{Any: &Matchers{Matchers: rewritten}}}})
		}
		f.Matchers = []Matcher{and(ms...)}
		extra = append(extra, f)
	}
	extra = append(extra, g.derivedGated(&plain, matched)...)
	extra = append(extra, g.whileLacking(&plain, matched)...)
	var rules []Rule
	for _, r := range append([]Rule{plain, keyed}, extra...) {
		for _, gr := range gated(r, matched) {
			for _, hr := range handlerGated(gr) {
				rules = append(rules, dependentGated(hr, matched)...)
			}
		}
	}
	return g.finish(unmatched(append(rules, g.dropRules()...), matched)...)
}

// split divides the kind's rule between the resources a plain copy is right on (the kind except
// the misfits) and the misfits, named: kapp runs a ytt rule for every resource it matches, so the
// ytt rule names exactly the resources that need it, even when that is every resource matched now
// (then the caller emits no plain rule, which no pair would verify).
func (g *group) split(misfits []misfit) (others, exceptions Rule) {
	var ids []pair.Identity
	var each []Matcher
	for _, m := range misfits {
		ids = append(ids, m.id)
		each = append(each, nameOf(m.id))
	}
	others, exceptions = g.rule, g.rule
	// behind the kind's matcher already: the names alone
	others.Matchers = []Matcher{and(g.rule.Matchers[0], Matcher{Not: &Not{Matcher: Matcher{Any: &Matchers{Matchers: each}}}})}
	exceptions.Matchers = names(ids, g.kind)
	return others, exceptions
}

// kind is the matcher of the kind a kind's group rules (its rule's first matcher), for names.
func (g *group) kind(pair.Identity) Matcher { return g.rule.Matchers[0] }

// and is an andMatcher of ms, the matchers of an andMatcher among them inlined.
func and(ms ...Matcher) Matcher {
	var all []Matcher
	for _, m := range ms {
		if m.And != nil {
			all = append(all, m.And.Matchers...)
		} else {
			all = append(all, m)
		}
	}
	return Matcher{And: &Matchers{Matchers: all}}
}

// own returns the paths of set at which one of the misfits has a finding: the ytt rule naming
// them needs no other (another resource's container names select nothing in theirs).
func (g *group) own(set []fielddiff.Path, misfits []misfit) []fielddiff.Path {
	var out []fielddiff.Path
	for _, p := range set {
		for _, m := range misfits {
			if g.at[p.String()][m.id] {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// declaredApart divides set between the paths a plain copy can write on every resource of the
// kind it matches and those at which a manifest declares a map or list (in any item; the misfits,
// which take the ytt rule, aside): a copy of such a path from the live object matched by the kind
// puts the live one back once Git removed the manifest's (issue 23), so it is a plain copy named
// to the resources with a finding there, none of which declares one (fitPlain made those
// misfits), in a rule for each set of them. A resource that declares one and has no finding
// there needs no copy of it, and is matched by none. A plain copy stays by index: kapp's copy is
// evaluated for a few resources, no ytt. A map path under which kapp's built-in copies write
// acts only while the object lacks the map, as whileLacking writes it.
func (g *group) declaredApart(set []fielddiff.Path, fit fitting, atIndex map[string]map[pair.Identity]bool, matched []classify.Resource) (kindWide []fielddiff.Path, named []Rule) {
	byIDs := map[string]*Rule{}
	paths := map[string][]fielddiff.Path{}
	var order []string
	for _, p := range set {
		k := indexKey(p)
		if len(fit.declared[k]) == 0 {
			kindWide = append(kindWide, p)
			continue
		}
		ids := map[pair.Identity]bool{}
		for id := range atIndex[k] {
			if !slices.ContainsFunc(fit.misfits, func(m misfit) bool { return m.id == id }) {
				ids[id] = true
			}
		}
		if len(ids) == 0 {
			continue
		}
		sorted := sortedIDs(ids)
		fields, isFields := p.Fields()
		builtin := isFields && builtinUnder(fields, matched)
		key := fmt.Sprint(sorted)
		if builtin {
			key += "\x00" + p.String()
		}
		r := byIDs[key]
		if r == nil {
			c := g.rule
			c.Paths, c.Indexed, c.Matchers = nil, nil, nil
			for _, m := range names(sorted, g.kind) {
				if builtin {
					m = and(m, Matcher{EmptyField: &EmptyField{Path: Keys(fields...)}})
				}
				c.Matchers = append(c.Matchers, m)
			}
			r = &c
			byIDs[key] = r
			order = append(order, key)
		}
		paths[key] = append(paths[key], p)
	}
	for _, k := range order {
		g.addPlain(byIDs[k], paths[k])
		named = append(named, *byIDs[k])
	}
	return kindWide, named
}

// notOnly returns the paths of set at which a resource other than the misfits has a finding.
func (g *group) notOnly(set []fielddiff.Path, misfits []misfit) []fielddiff.Path {
	var out []fielddiff.Path
	for _, p := range set {
		for id := range g.at[p.String()] {
			if !slices.ContainsFunc(misfits, func(m misfit) bool { return m.id == id }) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func (g *group) isEmpty(p fielddiff.Path) bool { return g.empty[p.String()] }

// addPlain adds paths to a plain copy rule.
func (g *group) addPlain(r *Rule, paths []fielddiff.Path) {
	for _, p := range uniqueByIndex(paths) {
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
	r.FoldStringData = len(g.folded) > 0
	return r
}

// artifactRule is the one rule for kapp's empty annotations map, for every kind that shows it
// (each kind's part: its matcher, without the resources whose live annotations hold others): a
// copy of metadata.annotations from the live object only while the manifest declares none
// (emptyFieldMatcher), which makes the map, then every key of it removed and the manifest's
// copied back (Emptied): only the empty map is kept. The copy alone took every annotation the
// live object holds, so an annotation removed in Git (the manifest's last) stayed for ever; kapp
// matches each rule on the resource as the earlier ones rebased it, so the remove cannot be
// gated on what the manifest declared, and the copy back restores it where the manifest has
// annotations. It comes last: no other rule writes metadata.annotations of a resource it matches
// (one whose live annotations hold any but kapp's is not matched), so the order changes nothing,
// and the rules for the objects' own fields come first.
func artifactRule(kinds []*Rule) Rule {
	slices.SortFunc(kinds, func(a, b *Rule) int { return strings.Compare(ruleKey(*a), ruleKey(*b)) })
	r := Rule{Sources: UserWins(), Paths: [][]string{{"metadata", "annotations"}}, Emptied: [][]string{{"metadata", "annotations"}}}
	ids, evid, classes := map[pair.Identity]bool{}, map[string]bool{}, map[classify.Class]bool{}
	var parts []Matcher
	for _, k := range kinds {
		parts = append(parts, k.Matchers[0])
		for _, id := range k.Resources {
			ids[id] = true
		}
		for _, e := range k.Evidence {
			evid[e] = true
		}
		for _, c := range k.Classes {
			classes[c] = true
		}
	}
	kind := parts[0]
	if len(parts) > 1 {
		kind = Matcher{Any: &Matchers{Matchers: parts}}
	}
	r.Matchers = []Matcher{and(kind, Matcher{EmptyField: &EmptyField{Path: Keys("metadata", "annotations")}})}
	r.RemoveMatchers = parts // kapp ORs a rule's matchers
	r.Resources, r.Evidence, r.Classes = byName(ids), sortedKeys(evid), slices.Sorted(maps.Keys(classes))
	return r
}
