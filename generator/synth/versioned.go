package synth

// Rules naming a versioned resource (kapp.k14s.io/versioned). kapp names the manifest's NAME
// NAME-ver-(N+1) before it rebases and diffs it against the live NAME-ver-N
// (diff/change_set_with_versioned_rs.go assignNewNames, then newChange), so a
// kindNamespaceNameMatcher naming NAME never matches it (newcomer13 N13-7: the rules Secret's
// copy of a versioned Secret's type, and a ResourceQuota's canonical quantities, did nothing;
// kapp created NAME-ver-2 and rolled the pods referring to it). kapp has no matcher for a name
// prefix: the resource is matched as a versioned resource of its kind in its namespace
// (hasAnnotationMatcher on kapp.k14s.io/versioned, which every version carries, and the
// keep-original copy named NAME too), which is narrow only where no other versioned resource of
// the kind lives in that namespace.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// VersionedName is a versioned resource a rule names, with its API group.
type VersionedName struct {
	Group string
	KindNamespaceName
}

type HasAnnotation struct {
	Keys []string `json:"keys"`
}

type HasNamespace struct {
	Names []string `json:"names"`
}

// matcher is how kapp's matchers select every name kapp gives v: its group and kind, its
// namespace (a cluster-scoped resource: no namespace, which hasNamespaceMatcher refuses), and
// kapp's versioned annotation.
func (v VersionedName) matcher() Matcher {
	ms := []Matcher{{APIGroupKind: &APIGroupKind{APIGroup: v.Group, Kind: v.Kind}}}
	if v.Namespace != "" {
		ms = append(ms, Matcher{HasNamespace: &HasNamespace{Names: []string{v.Namespace}}})
	}
	ms = append(ms, Matcher{HasAnnotation: &HasAnnotation{Keys: []string{kappconv.Versioned}}})
	return Matcher{And: &Matchers{Matchers: ms}}
}

// MarshalJSON writes m as kapp reads it: a versioned resource's name as the matcher of every
// name kapp gives it.
func (m Matcher) MarshalJSON() ([]byte, error) {
	if m.Versioned != nil {
		return json.Marshal(m.Versioned.matcher())
	}
	type plain Matcher
	return json.Marshal(plain(m))
}

// Versioned are the resources of rep kapp deploys as versioned resources.
func Versioned(rep *classify.Report) ([]pair.Identity, error) {
	var out []pair.Identity
	for _, r := range rep.Resources {
		obj, err := r.Desired.Object()
		if err != nil {
			return nil, err
		}
		if _, ok := obj.Unstructured.GetAnnotations()[kappconv.Versioned]; ok {
			out = append(out, r.ID)
		}
	}
	return out, nil
}

// VersionedNames names each versioned resource of versioned that rules name by its name as kapp
// matches it (VersionedName). It refuses a rule whose matcher would also select another
// versioned resource of the kind in the namespace that the rule does not name: no kapp matcher
// tells the two apart.
func VersionedNames(rules []Rule, versioned []pair.Identity) ([]Rule, error) {
	if len(versioned) == 0 {
		return rules, nil
	}
	out := make([]Rule, len(rules))
	for i, r := range rules {
		var err error
		if r.Matchers, err = versionedIn(r.Matchers, versioned); err != nil {
			return nil, err
		}
		// The remove rule of an emptied map (kapp's annotations: {} artifact, artifactRule) takes
		// every annotation, kapp.k14s.io/versioned too, and the copy back of the manifest's keys,
		// matched after it, would no longer match a versioned resource: its annotations were
		// lost, every rule after it missed it (kapp made creds-ver-2 without them). A versioned
		// manifest always declares annotations, so the copy of the empty map never acts on it
		// and the pair has nothing to undo there: it leaves versioned resources out.
		r.RemoveMatchers = withoutVersioned(r.RemoveMatchers, versioned)
		if len(r.Also) > 0 {
			if r.Also, err = VersionedNames(r.Also, versioned); err != nil {
				return nil, err
			}
		}
		out[i] = r
	}
	return out, nil
}

// versionedIn is ms with each name of a versioned resource replaced (a copy: rules share their
// matchers), or an error where that would select a versioned resource ms do not name.
func versionedIn(ms []Matcher, versioned []pair.Identity) ([]Matcher, error) {
	named := map[KindNamespaceName]bool{}
	for _, m := range ms {
		m.Walk(func(c Matcher) {
			if c.KindNamespaceName != nil {
				named[*c.KindNamespaceName] = true
			}
		})
	}
	var errs []string
	var replace func(Matcher) Matcher
	replace = func(m Matcher) Matcher {
		switch {
		case m.KindNamespaceName != nil:
			k := *m.KindNamespaceName
			i := slices.IndexFunc(versioned, func(id pair.Identity) bool {
				return KindNamespaceName{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name} == k
			})
			if i < 0 {
				return m
			}
			id := versioned[i]
			for _, o := range versioned {
				if o != id && o.Group == id.Group && o.Kind == id.Kind && o.Namespace == id.Namespace && !named[KindNamespaceName{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}] {
					errs = append(errs, fmt.Sprintf("a rule for %s cannot name it as kapp diffs it: kapp diffs a versioned resource (%s) as %s against the live %s, after renaming it, so a kindNamespaceNameMatcher naming %s never matches; kapp has no matcher for a name prefix, and the matcher for every versioned %s in its namespace would also select %s, which the rule is not for",
						escape.Text(id.String()), kappconv.Versioned, escape.Text(kappconv.VersionedName(id.Name, 2)), escape.Text(kappconv.VersionedName(id.Name, 1)), escape.Text(id.Name), escape.Text(id.Kind), escape.Text(o.String())))
					return m
				}
			}
			return Matcher{Versioned: &VersionedName{Group: id.Group, KindNamespaceName: k}}
		case m.And != nil:
			return Matcher{And: &Matchers{Matchers: each(m.And.Matchers, replace)}}
		case m.Any != nil:
			return Matcher{Any: &Matchers{Matchers: each(m.Any.Matchers, replace)}}
		case m.Not != nil:
			return Matcher{Not: &Not{Matcher: replace(m.Not.Matcher)}}
		}
		return m
	}
	out := each(ms, replace)
	if len(errs) > 0 {
		slices.Sort(errs)
		return nil, fmt.Errorf("%s", strings.Join(slices.Compact(errs), "; "))
	}
	return out, nil
}

// withoutVersioned is ms without the names of versioned resources (a copy), and without each
// matcher then left selecting none of the resources it named.
func withoutVersioned(ms []Matcher, versioned []pair.Identity) []Matcher {
	var drop func(Matcher) (Matcher, bool)
	drop = func(m Matcher) (Matcher, bool) {
		switch {
		case m.KindNamespaceName != nil:
			k := *m.KindNamespaceName
			return m, !slices.ContainsFunc(versioned, func(id pair.Identity) bool {
				return KindNamespaceName{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name} == k
			})
		case m.Any != nil:
			var kept []Matcher
			for _, c := range m.Any.Matchers {
				if c, ok := drop(c); ok {
					kept = append(kept, c)
				}
			}
			return Matcher{Any: &Matchers{Matchers: kept}}, len(kept) > 0
		case m.And != nil:
			all := make([]Matcher, 0, len(m.And.Matchers))
			for _, c := range m.And.Matchers {
				c, ok := drop(c)
				if !ok {
					return m, false // one of them now selects nothing
				}
				all = append(all, c)
			}
			return Matcher{And: &Matchers{Matchers: all}}, true
		}
		return m, true
	}
	var out []Matcher
	for _, m := range ms {
		if m, ok := drop(m); ok {
			out = append(out, m)
		}
	}
	return out
}

func each(ms []Matcher, f func(Matcher) Matcher) []Matcher {
	if ms == nil {
		return nil
	}
	out := make([]Matcher, len(ms))
	for i, m := range ms {
		out[i] = f(m)
	}
	return out
}

// AsWritten are rules as a rules file holds them: one install's own (OwnResources) where own,
// each name of a versioned resource as kapp matches it (VersionedNames). generate verifies these,
// and check regenerates them.
func AsWritten(rules []Rule, rep *classify.Report, own bool) ([]Rule, error) {
	if own {
		rules = OwnResources(rules, Ruled(rules))
	}
	versioned, err := Versioned(rep)
	if err != nil {
		return nil, err
	}
	return VersionedNames(rules, versioned)
}
