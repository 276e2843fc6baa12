package synth

// Copies that act only where they cannot overwrite what kapp's built-in rules put back, nor give
// an object a second handler where Git switched to another one.

import (
	"fmt"
	"slices"
	"sync"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// builtinCopy is one of kapp's built-in copy rules (config/default.go): its matchers and paths.
type builtinCopy struct {
	m     kappmatch.Matcher
	paths []ctlres.Path
}

// builtinCopies are kapp's built-in copy rules, read with kapp's own parser.
var builtinCopies = sync.OnceValues(func() ([]builtinCopy, bool) {
	rules, err := kappmatch.BuiltinRebaseRules()
	if err != nil {
		return nil, false
	}
	var out []builtinCopy
	for _, r := range rules {
		if r.Ytt != nil || r.Type != "copy" {
			continue
		}
		m, ok := kappmatch.New(r.ResourceMatchers)
		if !ok {
			return nil, false
		}
		paths := r.Paths
		if len(r.Path) > 0 {
			paths = append(paths, r.Path)
		}
		out = append(out, builtinCopy{m: m, paths: paths})
	}
	return out, true
})

// builtinUnder reports whether one of kapp's built-in copies writes strictly under the map at p
// on one of matched: a copy of p from new first, on a resource whose manifest declares p,
// replaces the map the built-in rule wrote into (kapp runs its built-in rules first), so it drops
// what that rule put back. A CRD's spec.conversion defaulted to {strategy: None} where the
// manifest lacks it, copied for every CRD, took back the caBundle a CA injector wrote into a CRD
// whose manifest declares a conversion webhook (newcomer4 finding 8).
func builtinUnder(p []string, matched []classify.Resource) bool {
	bs, ok := builtinCopies()
	if !ok {
		return true // unknown: the narrow rule is right anyway
	}
	for _, b := range bs {
		if !slices.ContainsFunc(b.paths, func(bp ctlres.Path) bool { return strictlyUnder(bp, p) }) {
			continue
		}
		for _, res := range matched {
			obj, err := res.Desired.Object()
			if err != nil || b.m.MatchesObject(obj.Unstructured) {
				return true
			}
		}
	}
	return false
}

// strictlyUnder reports whether kapp path bp leads below the map keys p.
func strictlyUnder(bp ctlres.Path, p []string) bool {
	if len(bp) <= len(p) {
		return false
	}
	for i, k := range p {
		if bp[i].MapKey == nil || *bp[i].MapKey != k {
			return false
		}
	}
	return true
}

// whileLacking splits off the paths of a kind's plain copy under which kapp's built-in copies
// write (builtinUnder), each into a rule of its own that names the resources with a finding
// there and acts only while the object being rebased lacks the map (emptyFieldMatcher): the
// server's default for a map the manifest leaves out, never the manifest's own map with what
// kapp's built-in rules put into it replaced. Named, not kind-wide: a kind-wide copy from the
// live object would put the live map back where Git removes the manifest's. A path at which a
// manifest of the kind declares a map or list (declaredCollection) is named the same way, for
// that reason, without the emptyFieldMatcher: kapp matches it on the object as the earlier rules
// rebased it, and a kind's copy of a field under the map (a Pod's
// spec.resources.requests.cpu) may have made the map there already.
func (g *group) whileLacking(plain *Rule, matched []classify.Resource) []Rule {
	if plain.YTT() || len(plain.Matchers) != 1 {
		return nil
	}
	var out []Rule
	declared := map[string]int{} // the resources named (their list) -> their rule in out
	plain.Paths = slices.DeleteFunc(plain.Paths, func(p []string) bool {
		builtin := builtinUnder(p, matched)
		if !builtin && !g.declaredBy(p, matched) {
			return false
		}
		ids := map[pair.Identity]bool{}
		for id := range g.at[fielddiff.FromFields(p).String()] {
			ids[id] = true
		}
		if len(ids) == 0 {
			return false
		}
		sorted := sortedIDs(ids)
		if i, ok := declared[fmt.Sprint(sorted)]; ok && !builtin {
			out[i].Paths = append(out[i].Paths, p) // one rule for the paths naming the same resources
			return true
		}
		r := g.rule
		r.Paths, r.Matchers = [][]string{p}, nil
		for _, m := range names(sorted, g.kind) {
			if builtin {
				m = and(m, Matcher{EmptyField: &EmptyField{Path: Keys(p...)}})
			}
			r.Matchers = append(r.Matchers, m)
		}
		if !builtin {
			declared[fmt.Sprint(sorted)] = len(out)
		}
		out = append(out, r)
		return true
	})
	return out
}

// handlerGated returns r, without the paths it splits off into rules of their own acting only
// while no other handler is declared beside the one the path leads into (an emptyFieldMatcher
// on each other handler, every list item): kapp's copy makes every map the object it rebases
// lacks and the live object holds, so a copy of a webhook's clientConfig.service.port, where Git
// switched the webhook to a url, wrote service back beside it, and the API server refuses a
// webhook with both (newcomer4 finding 9). A list's items are judged together (kapp's copy
// writes every item): where another item calls a URL the copy does not act at all, and the
// field stays a ghost diff, which verification reports, rather than an object kapp cannot apply.
func handlerGated(r Rule) []Rule {
	if r.YTT() || len(r.Matchers) != 1 {
		return []Rule{r}
	}
	byGate := map[string]*Rule{}
	var order []string
	split := func(p fielddiff.Path) bool {
		parent, others, ok := classify.Handlers(p)
		var ms []Matcher
		var while string
		switch {
		case ok:
			for _, o := range others {
				e := emptyAt(parent)
				e.Path = append(e.Path, PathPart{Key: o})
				ms = append(ms, Matcher{EmptyField: &e})
			}
		default:
			var m Matcher
			if parent, m, while, ok = switchGate(p); !ok {
				return false
			}
			ms = []Matcher{m}
		}
		k := parent.String()
		s := byGate[k]
		if s == nil {
			c := r
			c.Paths, c.Indexed, c.Emptied, c.RemoveMatchers = nil, nil, nil, nil
			c.Matchers = []Matcher{and(append([]Matcher{r.Matchers[0]}, ms...)...)}
			c.While = while
			s = &c
			byGate[k] = s
			order = append(order, k)
		}
		if fields, ok := p.Fields(); ok {
			s.Paths = append(s.Paths, fields)
		} else {
			s.Indexed = append(s.Indexed, p)
		}
		return true
	}
	r.Paths = slices.DeleteFunc(slices.Clone(r.Paths), func(p []string) bool { return split(fielddiff.FromFields(p)) })
	r.Indexed = slices.DeleteFunc(slices.Clone(r.Indexed), split)
	out := []Rule{r}
	for _, k := range order {
		out = append(out, *byGate[k])
	}
	return out
}

// declaredBy reports whether one of matched declares at p a map or list, or a scalar the
// server's defaults would not give back once Git removed it (declaresAt): a kind-wide copy of p
// from the live object would put the live one back (a Pod's spec.resources.limits defaulted
// from its requests on one Pod, declared on another; a Deployment's revisionHistoryLimit
// defaulted on one, declared 5 on another).
func (g *group) declaredBy(p []string, matched []classify.Resource) bool {
	fp := fielddiff.FromFields(p)
	for _, res := range matched {
		obj, err := res.Desired.Object()
		if err != nil {
			continue // classify decoded it: a bug; the rule stays whole, as gated leaves it
		}
		if g.declaresAt(res, obj.Unstructured, fp) {
			return true
		}
	}
	return false
}
