package synth

// Fewer rules for the same resources: controller rules with identical paths merged into one naming
// them all, ytt rules naming the same resources run as one evaluation.

import (
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

// oneYTTRulePerResources moves every ytt rule naming exactly the resources an earlier ytt rule
// names into that rule's Also: one ytt evaluation per resource instead of one per rule. On the
// fixture mix the sidecar Deployment had two (the injected container, the controller's; the
// displaced container's defaults, the kind's), each ~2.9 MB of allocations per evaluation in kapp.
// The later rule's rewrites then run before the rules sorted between the two: kapp's engine
// decides again whether the rules remove the ghost diffs (verification, mutation checks).
func oneYTTRulePerResources(rules []Rule) []Rule {
	first := map[string]int{} // the names a ytt rule matches -> its index in out
	var out []Rule
	for _, r := range rules {
		key, named := namesKey(r.Matchers)
		if r.YTT() && named {
			if i, ok := first[key]; ok {
				out[i].Also = append(out[i].Also, r)
				continue
			}
			first[key] = len(out)
		}
		out = append(out, r)
	}
	return out
}

// namesKey is the sorted names of matchers that only name resources (as names writes them: a
// kindNamespaceNameMatcher, or the andMatcher of a kind's matcher and the anyMatcher of names);
// false for any other matcher.
func namesKey(ms []Matcher) (string, bool) {
	var keys []string
	for _, m := range ms {
		if m.KindNamespaceName == nil && (m.And == nil || len(m.And.Matchers) != 2 || m.And.Matchers[1].Any == nil) {
			return "", false
		}
		ns, ok := m.Names()
		if !ok {
			return "", false
		}
		for _, n := range ns {
			keys = append(keys, n.Kind+"\x00"+n.Namespace+"\x00"+n.Name)
		}
	}
	sort.Strings(keys)
	return strings.Join(slices.Compact(keys), "\n"), true
}
