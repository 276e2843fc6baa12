package synth

// Rules for one PackageInstall's own resources (generate --output secret).

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
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
//
// A rule names only the resources its own matchers match (not its Unmatched): naming one they
// reject, beside a gate it fails, changed nothing kapp does but made lint warn on generate's own
// output that the name matched nothing (newcomer11 N11-4).
func OwnResources(rules []Rule, ids []pair.Identity) []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		own := ids
		if len(r.Unmatched) > 0 {
			own = slices.DeleteFunc(slices.Clone(ids), func(id pair.Identity) bool { return slices.Contains(r.Unmatched, id) })
		}
		r.Matchers = narrowed(r.Matchers, own, ids)
		// judged on Matchers: a remove rule's own matchers keep every resource (artifactRule's)
		r.RemoveMatchers = narrowed(r.RemoveMatchers, ids, ids)
		out[i] = r
	}
	return out
}

// unmatched sets each rule's Unmatched: the resources of matched (every resource of the kind)
// whose manifests its matchers, which select more than names, reject, judged by kapp's own
// matcher code as gated judges its gates. Each manifest is decoded once, and only for a rule
// that can reject one (a kind's matcher alone selects them all).
func unmatched(rules []Rule, matched []classify.Resource) []Rule {
	var objs []*unstructured.Unstructured
	for i, r := range rules {
		if !slices.ContainsFunc(r.Matchers, rejects) {
			continue
		}
		kms, err := KappMatchers(r.Matchers)
		if err != nil {
			continue
		}
		m, ok := kappmatch.New(kms)
		if !ok {
			continue
		}
		if objs == nil {
			objs = make([]*unstructured.Unstructured, len(matched))
			for j, res := range matched {
				if obj, err := res.Desired.Object(); err == nil {
					objs[j] = obj.Unstructured
				}
			}
		}
		var out []pair.Identity
		for j, res := range matched {
			if objs[j] != nil && !m.MatchesObject(objs[j]) { // one that does not decode (a bug): kept
				out = append(out, res.ID)
			}
		}
		rules[i].Unmatched = out
	}
	return rules
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

// narrowed names the resources of own of the kinds each matcher selects, or, where none of own
// is of them (a rule every analysed manifest fails), those of ids: never the kind alone.
func narrowed(ms []Matcher, own, ids []pair.Identity) []Matcher {
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
		sel := selectable(m, own)
		if len(sel) == 0 {
			sel = selectable(m, ids)
		}
		for _, id := range sortedIDs(sel) {
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

// rejects reports whether m may reject a resource of the kinds it selects: it selects by more
// than kind (a gate, the names of a kind's misfits) and names no resource (OwnResources keeps
// a matcher that does).
func rejects(m Matcher) bool {
	_, named := m.Names()
	return !named && (m.And != nil || m.Not != nil)
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
