package synth

// Rules for one PackageInstall's own resources (generate --output secret).

import (
	"github.com/rebasegen/rebasegen/generator/pair"
)

// OwnResources narrows every matcher of rules that selects resources by kind to the resources
// ids names: a rules Secret is one PackageInstall's (kapp-controller adds it to that install's
// ytt step through the install's ytt-paths-from-secret-name annotation), and its objects are the
// ones kapp-controller labels with that install's kapp app label (kapp.k14s.io/app of its app,
// NAME.app). kapp has no matcher for a label, so the rules name them: a kind's matcher alone
// selected every resource of the kind, those of any other install the Secret is added to and
// any the install's app adopts included (newcomer4 finding 4). A matcher that names resources
// already is kept. The resources are those in the namespace they were analysed in (the
// install's): an object the package adds later is named once generate runs again.
func OwnResources(rules []Rule, ids []pair.Identity) []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		r.Matchers = narrowed(r.Matchers, ids)
		r.RemoveMatchers = narrowed(r.RemoveMatchers, ids)
		out[i] = r
	}
	return out
}

// Ruled are the resources rules were made for (each rule's Resources, and its parts'): the
// resources with a field they rebase. A resource of the same kinds with none is kept by kapp's
// built-in rules alone, so rules naming only these rebase the same.
func Ruled(rules []Rule) []pair.Identity {
	seen := map[pair.Identity]bool{}
	for _, r := range rules {
		for _, part := range r.Parts() {
			for _, id := range part.Resources {
				seen[id] = true
			}
		}
	}
	return sortedIDs(seen)
}

func narrowed(ms []Matcher, ids []pair.Identity) []Matcher {
	if ms == nil {
		return nil
	}
	out := make([]Matcher, 0, len(ms))
	for _, m := range ms {
		if _, named := m.Names(); named {
			out = append(out, m)
			continue
		}
		var each []Matcher
		for _, id := range sortedIDs(selectable(m, ids)) {
			each = append(each, nameOf(id))
		}
		if len(each) == 0 {
			continue // none of the install's resources is of its kinds
		}
		out = append(out, and(m, Matcher{Any: &Matchers{Matchers: each}}))
	}
	if len(out) == 0 {
		return ms // rules come from the resources: each matches one of them
	}
	return out
}

// selectable are the resources of ids of the kinds m names (kindNamespaceNameMatcher compares
// the kind alone, so the andMatcher keeps m's group and apiVersion): every one where m names
// no kind.
func selectable(m Matcher, ids []pair.Identity) map[pair.Identity]bool {
	kinds := map[string]bool{}
	m.Walk(func(c Matcher) {
		switch {
		case c.APIVersionKind != nil:
			kinds[c.APIVersionKind.Kind] = true
		case c.APIGroupKind != nil:
			kinds[c.APIGroupKind.Kind] = true
		}
	})
	out := map[pair.Identity]bool{}
	for _, id := range ids {
		if len(kinds) == 0 || kinds[id.Kind] {
			out[id] = true
		}
	}
	return out
}
