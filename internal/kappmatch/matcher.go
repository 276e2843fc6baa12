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

// ByIdentity decides kapp's matcher on a resource of u's identity (apiVersion, kind, namespace,
// name) whatever else it holds: decided when the identity alone decides it (matches then says
// how), else it depends on what kapp matches the rule on: the resource as kapp deploy prepared it
// and the earlier rules rebased it (diff/rebased_resource.go), whose annotations and fields the
// manifest need not show (hasAnnotationMatcher, emptyFieldMatcher). Neither changes the identity.
func (m Matcher) ByIdentity(u *unstructured.Unstructured) (matches, decided bool) {
	if m.m == nil {
		return false, true
	}
	return ByIdentity(m.m, u)
}

// ByIdentityOf is ByIdentity on the object id was made of.
func (m Matcher) ByIdentityOf(id Identity) (matches, decided bool) {
	if m.m == nil {
		return false, true
	}
	return id.Decide(m.m)
}

// ByIdentity is Matcher.ByIdentity for a matcher as kapp built it for a rule (a rebase mod's
// ResourceMatcher).
func ByIdentity(m ctlres.ResourceMatcher, u *unstructured.Unstructured) (matches, decided bool) {
	return IdentityOf(u).Decide(m)
}

// Identity is a resource holding u's identity alone (apiVersion, kind, namespace, name), which
// kapp's matchers read without modifying it: made once to decide many matchers on one object.
// Performance: made anew for each rebase rule, it was a tenth of classification's allocations.
type Identity struct{ res ctlres.Resource }

// IdentityOf returns u's identity.
func IdentityOf(u *unstructured.Unstructured) Identity {
	id := &unstructured.Unstructured{Object: map[string]any{}}
	id.SetAPIVersion(u.GetAPIVersion())
	id.SetKind(u.GetKind())
	id.SetNamespace(u.GetNamespace())
	id.SetName(u.GetName())
	return Identity{ctlres.NewResourceUnstructured(*id, ctlres.ResourceType{})}
}

// Decide is ByIdentity of m on the object id was made of.
func (id Identity) Decide(m ctlres.ResourceMatcher) (matches, decided bool) {
	t := byIdentity(m, id.res)
	return t == always, t != maybe
}

type tri int8

const (
	never tri = iota
	always
	maybe
)

// byIdentity decides m on a resource holding its identity alone: matchers reading nothing else are
// asked themselves, those reading more are maybe, and any, and, not combine their parts.
func byIdentity(m ctlres.ResourceMatcher, id ctlres.Resource) (out tri) {
	defer func() {
		if recover() != nil { // kapp panics reading some matchers (see safe) on some objects
			out = maybe
		}
	}()
	switch m := m.(type) {
	case ctlres.AllMatcher, ctlres.APIVersionKindMatcher, ctlres.APIGroupKindMatcher, ctlres.CustomResourceMatcher,
		ctlres.KindNamespaceNameMatcher, ctlres.HasNamespaceMatcher:
		if m.Matches(id) {
			return always
		}
		return never
	case ctlres.AnyMatcher:
		return combine(m.Matchers, id, always)
	case ctlres.AndMatcher:
		return combine(m.Matchers, id, never)
	case ctlres.NotMatcher:
		switch byIdentity(m.Matcher, id) {
		case always:
			return never
		case never:
			return always
		}
	}
	return maybe
}

// combine is byIdentity of an anyMatcher (decisive: always) or an andMatcher (decisive: never): the
// first part giving the decisive answer decides, else maybe when a part was undecided, else the
// other answer.
func combine(ms []ctlres.ResourceMatcher, id ctlres.Resource, decisive tri) tri {
	out := always + never - decisive
	for _, m := range ms {
		switch byIdentity(m, id) {
		case decisive:
			return decisive
		case maybe:
			out = maybe
		}
	}
	return out
}

// BuiltinRebaseRules are kapp's built-in rebase rules (config/default.go), read with kapp's own
// parser: the ones every deploy runs before a package's.
func BuiltinRebaseRules() ([]ctlconf.RebaseRule, error) {
	res, err := ctlres.NewResourceFromBytes([]byte(ctlconf.NewDefaultConfigString()))
	if err != nil {
		return nil, err
	}
	cfg, err := ctlconf.NewConfigFromResource(res)
	return cfg.RebaseRules, err
}

// Reads lists, as kapp paths, what the matcher reads of the object beyond its identity: each
// emptyFieldMatcher's path and, for each key of a hasAnnotationMatcher, that annotation. kapp
// reads them on the resource as the earlier rules rebased it (diff/rebased_resource.go).
func (m Matcher) Reads() []ctlres.Path {
	return reads(m.m)
}

func reads(m ctlres.ResourceMatcher) []ctlres.Path {
	var out []ctlres.Path
	switch m := m.(type) {
	case ctlres.AnyMatcher:
		for _, sub := range m.Matchers {
			out = append(out, reads(sub)...)
		}
	case ctlres.AndMatcher:
		for _, sub := range m.Matchers {
			out = append(out, reads(sub)...)
		}
	case ctlres.NotMatcher:
		out = reads(m.Matcher)
	case ctlres.EmptyFieldMatcher:
		out = []ctlres.Path{m.Path}
	case ctlres.HasAnnotationMatcher:
		for _, k := range m.Keys {
			out = append(out, ctlres.NewPathFromStrings([]string{"metadata", "annotations", k}))
		}
	}
	return out
}
