package synth

// Plain copies of fields in list items, in rules kapp runs only on the resources that have the
// list (or the map holding the field) at all.

import (
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// gated returns r, without the paths it splits off into rules of their own matching only the
// resources that hold something at the path's grandparent (an andMatcher of r's matcher and a
// notMatcher of an emptyFieldMatcher there). kapp's copy deep-copies the whole resource and the
// whole source for every path, for each source, on every resource the rule matches, whether the
// path reaches anything there or not (resources/mod_field_copy.go): four copies of a Deployment
// for its readinessProbe's httpGet.scheme where no container has a readinessProbe.
//
// The effect is the same: for a path through list items kapp's copy walks the items of the object
// it rebases and creates no list item that object lacks, so where the emptyFieldMatcher finds
// nothing at the grandparent of the leaf (absent, null, [] or {}, in every item) the copy writes
// nothing: the part after the grandparent is a list index or a map key that is not the leaf. (A
// grandparent of the wrong type, a list where the path needs a map, is an error kapp's copy
// raises, and no longer reaches.) Both read the object being rebased.
//
// A path is split off where that saves kapp work: some resource among matched lacks the
// grandparent, and no other path of r differs from it in one part only (emit writes those as one
// path with a {regex} part, which costs the resources as much as either). Where a manifest does
// not decode (classify decoded it before) r stays whole, which is right too.
//
// A path whose leaf lies in a map below the last list item (readinessProbe.httpGet.scheme) is
// split off, gated on that map (parentGate), where every manifest matched declares it: past the
// last list index kapp's copy makes every map the object lacks and the live object holds
// (resources/mod_field_copy.go creates empty maps where no array index follows), so a copy of
// httpGet.scheme into a manifest whose probe switched to tcpSocket made a probe with two
// handlers, which the API server refuses, and kapp's deploy failed (newcomer2 finding 9). Gated,
// the rule runs only on resources that declare the map, in some item: exact where the list has
// one item. Where a manifest lacks the map the server made it, and the copy must make it too.
func gated(r Rule, matched []classify.Resource) []Rule {
	if r.YTT() || len(r.Matchers) != 1 || len(r.Indexed) == 0 {
		return []Rule{r}
	}
	type gate struct {
		empty   EmptyField
		m       kappmatch.Matcher
		paths   []fielddiff.Path
		lacking bool
		always  bool // on the leaf's map: the copy would make it (parentGate)
	}
	var gates []*gate
	byKey := map[string]*gate{}
	var keep []fielddiff.Path
	declared := map[string]bool{} // by path: every manifest with a finding there declares the leaf's map
	for _, p := range r.Indexed {
		q, always := parentGate(p)
		k := "parent " + indexKey(p[:len(p)-1])
		if always {
			all, ok := declared[indexKey(p)]
			if !ok {
				all = declaredByAll(q, needing(p, matched))
				declared[indexKey(p)] = all
			}
			always = all
		}
		if !always {
			var ok bool
			if q, ok = grandparent(p); !ok || hasSibling(r, p) {
				keep = append(keep, p)
				continue
			}
			k = indexKey(p[:len(p)-2])
		}
		if g := byKey[k]; g != nil {
			g.paths = append(g.paths, p)
			continue
		}
		kms, err := KappMatchers([]Matcher{{EmptyField: &q}})
		if err != nil {
			return []Rule{r}
		}
		m, _ := kappmatch.New(kms)
		g := &gate{empty: q, m: m, paths: []fielddiff.Path{p}, always: always}
		byKey[k] = g
		gates = append(gates, g)
	}
	if len(gates) == 0 {
		return []Rule{r}
	}
	for _, res := range matched {
		obj, err := res.Desired.Object()
		if err != nil {
			return []Rule{r}
		}
		for _, g := range gates {
			g.lacking = g.lacking || g.m.MatchesObject(obj.Unstructured)
		}
	}
	out := []Rule{r}
	for _, g := range gates {
		if !g.lacking && !g.always {
			keep = append(keep, g.paths...)
			continue
		}
		split := r
		split.Paths, split.Indexed, split.Emptied, split.RemoveMatchers = nil, g.paths, nil, nil
		split.Matchers = []Matcher{and(r.Matchers[0], Matcher{Not: &Not{Matcher: Matcher{EmptyField: &g.empty}}})}
		out = append(out, split)
	}
	out[0].Indexed = keepOrder(r.Indexed, keep)
	return out
}

// grandparent is the emptyFieldMatcher at the grandparent of p's leaf, for a path through list
// items (each item step every item, as the plain copy writes it); false for any other path.
func grandparent(p fielddiff.Path) (EmptyField, bool) {
	if len(p) < 3 || p[len(p)-1].FieldName == nil {
		return EmptyField{}, false
	}
	return emptyAt(p[:len(p)-2]), slices.ContainsFunc(p, func(pe fieldpath.PathElement) bool { return pe.FieldName == nil })
}

// declaredByAll reports whether every manifest of matched declares something at q: where one
// does not, the copy must make the map there (the server made it: a container's resources from
// pod-level resources), and gating on it would leave that field a ghost. matched are the
// resources with a finding at the path (needing): one without, a Deployment with no probe beside
// one whose probe's httpGet.scheme is defaulted, needs no copy there, and took the gate off the
// other's rule (newcomer10 N10-1).
func declaredByAll(q EmptyField, matched []classify.Resource) bool {
	kms, err := KappMatchers([]Matcher{{EmptyField: &q}})
	if err != nil {
		return false
	}
	m, _ := kappmatch.New(kms)
	for _, res := range matched {
		obj, err := res.Desired.Object()
		if err != nil || m.MatchesObject(obj.Unstructured) {
			return false
		}
	}
	return true
}

// needing returns the resources of matched with a finding at p as a plain copy writes it (every
// list item: indexKey).
func needing(p fielddiff.Path, matched []classify.Resource) []classify.Resource {
	k := indexKey(p)
	var out []classify.Resource
	for _, res := range matched {
		if slices.ContainsFunc(res.Findings, func(f classify.Finding) bool { return indexKey(f.Path) == k }) {
			out = append(out, res)
		}
	}
	return out
}

// parentGate is the emptyFieldMatcher at the map holding p's leaf, for a path through list items
// whose leaf lies below a map key past the last list item (the part after the last list index
// holds a map key besides the leaf); false for any other path.
func parentGate(p fielddiff.Path) (EmptyField, bool) {
	last := -1
	for i, pe := range p {
		if pe.FieldName == nil {
			last = i
		}
	}
	if last < 0 || len(p)-last < 3 || p[len(p)-1].FieldName == nil {
		return EmptyField{}, false
	}
	return emptyAt(p[:len(p)-1]), true
}

// emptyAt is the emptyFieldMatcher at p, each list item step every item.
func emptyAt(p fielddiff.Path) EmptyField {
	var e EmptyField
	for _, pe := range p {
		if pe.FieldName != nil {
			e.Path = append(e.Path, PathPart{Key: *pe.FieldName})
		} else {
			e.Path = append(e.Path, PathPart{AllIndexes: true})
		}
	}
	return e
}

// hasSibling reports whether another path of r, as the plain copy writes it, differs from p in
// one map key only.
func hasSibling(r Rule, p fielddiff.Path) bool {
	for _, q := range r.Indexed {
		if len(q) != len(p) || indexKey(q) == indexKey(p) {
			continue
		}
		diff := 0
		for i := range p {
			switch {
			case (p[i].FieldName == nil) != (q[i].FieldName == nil):
				diff += 2
			case p[i].FieldName != nil && *p[i].FieldName != *q[i].FieldName:
				diff++
			}
		}
		if diff == 1 {
			return true
		}
	}
	return false
}

// keepOrder returns the paths of all that are in keep, in the order of all.
func keepOrder(all, keep []fielddiff.Path) []fielddiff.Path {
	kept := map[string]bool{}
	for _, p := range keep {
		kept[p.String()] = true
	}
	var out []fielddiff.Path
	for _, p := range all {
		if kept[p.String()] {
			out = append(out, p)
		}
	}
	return out
}
