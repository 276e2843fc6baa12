package synth

// Fewer rules for the same resources: controller rules with identical paths merged into one naming
// them all, ytt rules naming the same resources run as one evaluation.

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/rebasegen/rebasegen/generator/pair"
)

// mergeSamePaths puts resources whose controller-owned paths are identical into one group, one
// rule naming them all (names): still exactly those resources, fewer rules.
func mergeSamePaths(byResource map[pair.Identity]*group) []*group {
	merged := map[string]*group{}
	var ids []pair.Identity
	for id := range byResource {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Less(ids[j]) })
	var out []*group
	for _, id := range ids {
		g := byResource[id]
		key := strings.Join(sortedKeys(g.paths), "\n")
		if m, ok := merged[key]; ok {
			maps.Copy(m.res, g.res)
			maps.Copy(m.evid, g.evid)
			maps.Copy(m.class, g.class)
			maps.Copy(m.owners, g.owners)
			maps.Copy(m.empty, g.empty)
			maps.Copy(m.nulls, g.nulls)
			maps.Copy(m.rewrites, g.rewrites)
			maps.Copy(m.folded, g.folded)
			mergeAt(m.evidAt, g.evidAt)
			mergeAt(m.classAt, g.classAt)
			mergeAt(m.ownerAt, g.ownerAt)
			continue
		}
		merged[key] = g
		out = append(out, g)
	}
	return out
}

// oneYTTRulePerResources runs every ytt rule naming resources in one evaluation per resource:
// a rule naming resources an earlier ytt rule names joins that rule's Also for them, the earlier
// rule split where it names others too (the part naming the shared resources right after it,
// both in its place: they match none of the same resources). kapp evaluates a ytt rule once per
// resource it matches, under each base, on every deploy: a Deployment with an injected sidecar
// (the controller's ytt rule naming it) whose kind's keyed rule names it among others ran ytt
// twice for every rebase. The later rule's rewrites then run before the rules sorted between the
// two: kapp's engine decides again whether the rules remove the ghost diffs (verification,
// mutation checks).
func oneYTTRulePerResources(rules []Rule) []Rule {
	var out []Rule
	for _, r := range rules {
		rest, named := nameSet(r.Matchers)
		if !r.YTT() || !named {
			out = append(out, r)
			continue
		}
		for i := 0; i < len(out) && len(rest) > 0; i++ {
			had, ok := nameSet(out[i].Matchers)
			if !out[i].YTT() || !ok {
				continue
			}
			both := map[string]bool{}
			for k := range had {
				if rest[k] {
					both[k] = true
				}
			}
			if len(both) == 0 {
				continue
			}
			if len(both) < len(had) {
				out = slices.Insert(out, i+1, restrict(out[i], both))
				out[i] = restrict(out[i], without(had, both))
				i++
			}
			out[i].Also = append(out[i].Also, restrict(r, both))
			rest = without(rest, both)
		}
		if len(rest) > 0 {
			out = append(out, restrict(r, rest))
		}
	}
	return out
}

// nameSet is the resources matchers name when they only name resources (as names writes them: a
// kindNamespaceNameMatcher, or the andMatcher of a kind's matcher and the anyMatcher of names),
// each keyed by the kind's matcher beside kind, namespace and name (kindNamespaceNameMatcher
// ignores the API group, the kind's matcher does not); false for any other matcher.
func nameSet(ms []Matcher) (map[string]bool, bool) {
	out := map[string]bool{}
	for _, m := range ms {
		kind, list := nameList(m)
		if list == nil {
			return nil, false
		}
		for _, n := range list {
			out[nameKey(kind, *n.KindNamespaceName)] = true
		}
	}
	return out, true
}

// nameList splits a matcher names writes into the kind's matcher (nil for a name alone) and the
// names; nil names for any other matcher.
func nameList(m Matcher) (kind *Matcher, list []Matcher) {
	switch {
	case m.KindNamespaceName != nil:
		return nil, []Matcher{m}
	case m.And != nil && len(m.And.Matchers) == 2 && m.And.Matchers[1].Any != nil:
		for _, n := range m.And.Matchers[1].Any.Matchers {
			if n.KindNamespaceName == nil {
				return nil, nil
			}
		}
		return &m.And.Matchers[0], m.And.Matchers[1].Any.Matchers
	}
	return nil, nil
}

func nameKey(kind *Matcher, n KindNamespaceName) string {
	k := ""
	if kind != nil {
		js, _ := json.Marshal(kind)
		k = string(js)
	}
	return k + "\x00" + n.Kind + "\x00" + n.Namespace + "\x00" + n.Name
}

func without(set, drop map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range set {
		if !drop[k] {
			out[k] = true
		}
	}
	return out
}

// restrict is r (and its Also) naming only the resources keep holds, a kind's single resource by
// its kindNamespaceNameMatcher alone as names writes it; its Resources are those it still names.
func restrict(r Rule, keep map[string]bool) Rule {
	if all, _ := nameSet(r.Matchers); len(all) == len(keep) {
		return r
	}
	var ms []Matcher
	kept := map[KindNamespaceName]bool{}
	for _, m := range r.Matchers {
		kind, list := nameList(m)
		var left []Matcher
		for _, n := range list {
			if keep[nameKey(kind, *n.KindNamespaceName)] {
				left = append(left, n)
				kept[*n.KindNamespaceName] = true
			}
		}
		switch {
		case len(left) == 1:
			ms = append(ms, left[0])
		case len(left) > 1:
			ms = append(ms, and(*kind, Matcher{Any: &Matchers{Matchers: left}}))
		}
	}
	r.Matchers = ms
	r.Resources = slices.DeleteFunc(slices.Clone(r.Resources), func(id pair.Identity) bool {
		return !kept[KindNamespaceName{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}]
	})
	r.Also = slices.Clone(r.Also)
	for i := range r.Also {
		r.Also[i] = restrict(r.Also[i], keep)
	}
	return r
}
