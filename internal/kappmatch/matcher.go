// Package kappmatch runs kapp's own resource matcher code for rebasegen's checks, so that lint,
// check and generate's mutation check select resources exactly as kapp does (never a
// re-implementation), safe against kapp's panics.
package kappmatch

import (
	"slices"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Matcher is kapp's own matcher for a rule's resourceMatchers: a resource matches when any of
// them does, as kapp builds it for a rebase rule (config/config.go AsMods). lint, check and
// generate's mutation check all match with it, never with a re-implementation.
type Matcher struct {
	m ctlres.ResourceMatcher
	// named holds, per name a kindNamespaceNameMatcher in the rule holds, kapp's matcher for the
	// part of the rule that names it (the kindNamespaceNameMatcher, or an andMatcher with the
	// name in place of the anyMatcher of names it is in): each selects a subset of what the rule
	// selects, so a resource one of them matches matches the rule. A rule naming 5,000
	// Deployments otherwise costs 2,500 checks per named Deployment (generate's mutation check
	// at 10,000 fleet pairs: 1 s). Whatever none of them matches gets the whole rule. Only for
	// rules none of whose matchers can panic (safe): kapp stops at a panic in a matcher tried
	// before the one naming the resource, and so does Matches.
	named map[name][]ctlres.ResourceMatcher
}

type name struct{ kind, namespace, name string }

// New builds kapp's matcher; false where kapp panics building it (an empty matcher:
// "Unknown resource matcher specified"), which lint reports.
func New(ms []ctlconf.ResourceMatcher) (m Matcher, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	m = Matcher{m: ctlres.AnyMatcher{Matchers: ctlconf.ResourceMatchers(ms).AsResourceMatchers()}, named: map[name][]ctlres.ResourceMatcher{}}
	if !safe(ms) {
		return m, true
	}
	for _, top := range ms {
		if k := top.KindNamespaceNameMatcher; k != nil {
			m.add(k, top)
		}
		if top.AndMatcher == nil {
			continue
		}
		for j, sub := range top.AndMatcher.Matchers {
			if sub.AnyMatcher == nil {
				continue
			}
			for _, item := range sub.AnyMatcher.Matchers {
				if k := item.KindNamespaceNameMatcher; k != nil {
					alone := slices.Clone(top.AndMatcher.Matchers)
					alone[j] = item
					m.add(k, ctlconf.ResourceMatcher{AndMatcher: &ctlconf.AndMatcher{Matchers: alone}})
				}
			}
		}
	}
	return m, true
}

// safe reports whether none of ms can panic matching an object: in kapp v0.66.0
// (resources/matchers.go, matcher_empty_field.go) emptyFieldMatcher panics on a path part that
// is not a map key or list index, and apiGroupKindMatcher and customResourceMatcher on an
// apiVersion with more than one "/" (ResourceImpl.GroupVersion); the others only compare strings
// or combine matchers.
func safe(ms []ctlconf.ResourceMatcher) bool {
	for _, m := range ms {
		switch {
		case m.EmptyFieldMatcher != nil, m.APIGroupKindMatcher != nil, m.CustomResourceMatcher != nil:
			return false
		case m.AnyMatcher != nil && !safe(m.AnyMatcher.Matchers), m.AndMatcher != nil && !safe(m.AndMatcher.Matchers),
			m.NotMatcher != nil && !safe([]ctlconf.ResourceMatcher{m.NotMatcher.Matcher}):
			return false
		}
	}
	return true
}

func (m Matcher) add(k *ctlconf.KindNamespaceNameMatcher, part ctlconf.ResourceMatcher) {
	n := name{k.Kind, k.Namespace, k.Name}
	m.named[n] = append(m.named[n], part.AsResourceMatcher())
}

// Matches runs kapp's matcher on r. Where kapp panics reading a matcher against the object (an
// emptyFieldMatcher path with a regex part: "Unexpected path part") it is no match: kapp's own
// diff would stop there rather than apply the rule.
func (m Matcher) Matches(r ctlres.Resource) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if m.m == nil {
		return false
	}
	for _, part := range m.named[name{r.Kind(), r.Namespace(), r.Name()}] {
		if part.Matches(r) {
			return true
		}
	}
	return m.m.Matches(r)
}

// MatchesObject runs kapp's matcher on an object, read the way kapp reads the object it rebases.
// Matchers on content (emptyFieldMatcher) are decided on this very object.
func (m Matcher) MatchesObject(u *unstructured.Unstructured) bool {
	return m.Matches(ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{}))
}
