package synth

// Rules naming resources. kapp ORs a rule's resourceMatchers (resources/matchers.go AnyMatcher),
// trying them in order for every resource it rebases, under each base, on every deploy. As a flat
// list of kindNamespaceNameMatchers, a rule naming the 5,000 HPA-scaled Deployments of a fleet
// cost kapp 5,000 checks for each HorizontalPodAutoscaler and 2,500 on average for each Deployment
// (each check reads kind, namespace and name from the object): 8% of generate's CPU at 10,000
// fleet pairs, and the same in every kapp deploy. Behind the kind's own matcher, every other kind
// fails on the first check.

import "github.com/rebasegen/rebasegen/generator/pair"

// names returns matchers selecting the resources ids (sorted: each group/kind together), one
// kindNamespaceNameMatcher each, as kapp matches them: a kind's single resource is its
// kindNamespaceNameMatcher alone; several are an andMatcher of kind(id), the kind's matcher, and
// the anyMatcher of their names. (kindNamespaceNameMatcher ignores the API group; the andMatcher
// keeps the ids' group and, where kind is an apiVersionKindMatcher, the desired objects' only
// apiVersion: the same resources among the inputs.)
func names(ids []pair.Identity, kind func(pair.Identity) Matcher) []Matcher {
	var out []Matcher
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j].Group == ids[i].Group && ids[j].Kind == ids[i].Kind {
			j++
		}
		if j == i+1 {
			out = append(out, nameOf(ids[i]))
		} else {
			list := make([]Matcher, 0, j-i)
			for _, id := range ids[i:j] {
				list = append(list, nameOf(id))
			}
			out = append(out, and(kind(ids[i]), Matcher{Any: &Matchers{Matchers: list}}))
		}
		i = j
	}
	return out
}

func nameOf(id pair.Identity) Matcher {
	return Matcher{KindNamespaceName: &KindNamespaceName{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}}
}

// Names returns the resources m selects by name when it selects named resources only: a
// kindNamespaceNameMatcher, an anyMatcher of such matchers, or an andMatcher with one among its
// matchers (names writes the last two).
func (m Matcher) Names() ([]KindNamespaceName, bool) {
	switch {
	case m.KindNamespaceName != nil:
		return []KindNamespaceName{*m.KindNamespaceName}, true
	case m.Versioned != nil:
		return []KindNamespaceName{m.Versioned.KindNamespaceName}, true
	case m.Any != nil:
		var out []KindNamespaceName
		for _, c := range m.Any.Matchers {
			ns, ok := c.Names()
			if !ok {
				return nil, false
			}
			out = append(out, ns...)
		}
		return out, len(out) > 0
	case m.And != nil:
		for _, c := range m.And.Matchers {
			if ns, ok := c.Names(); ok {
				return ns, true
			}
		}
	}
	return nil, false
}
