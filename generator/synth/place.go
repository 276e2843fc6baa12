package synth

// Rules for a package's objects that follow the namespace the package is installed into.
//
// A package's template usually leaves metadata.namespace out: kapp puts such an object into the
// namespace it deploys to (app/preparation.go placeIntoNamespace: its --namespace, which
// kapp-controller v0.51.0 sets to the App's spec.defaultNamespace, else the kubeconfig's namespace,
// the App's own: the PackageInstall's; deploy/kapp.go, kubeconfig/service_accounts.go). Rules
// naming such an object with the namespace it was captured in fight again wherever a consumer
// installs the package elsewhere. kapp has no matcher for a name in any namespace
// (kindNamespaceNameMatcher compares the namespace exactly, "" only matching cluster-scoped
// objects; resources/matchers.go), but a package's Config applies only to the package's own
// resources (cmd/app/deploy.go: the deploy's Config rebases the changes of that app alone): where
// a rule names every object of a kind the package renders without a namespace, the kind's matcher
// without the objects it renders with one selects the same resources, in whatever namespace.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// Placement is what Place needs: every desired object as kapp reads it (the namespace filled in)
// and which of them the package renders without a namespace.
type Placement struct {
	Namespace string // where the placed objects were analysed: -n, or the namespace inferred
	Desired   []*unstructured.Unstructured
	Placed    []bool // Placed[i]: Desired[i] has no namespace in the package's output
}

// PlacementOf is the Placement of the desired objects, placed saying which of them the package
// renders without a namespace; nil when none of them is namespaced.
func PlacementOf(desired []load.Doc, placed func(load.Doc) bool) (*Placement, error) {
	p := Placement{}
	for _, d := range desired {
		obj, err := d.Object()
		if err != nil {
			return nil, err
		}
		in := placed(d) && d.Namespace != "" // a cluster-scoped object has none anyway
		if in {
			p.Namespace = d.Namespace
		}
		p.Desired, p.Placed = append(p.Desired, obj.Unstructured), append(p.Placed, in)
	}
	if p.Namespace == "" {
		return nil, nil
	}
	return &p, nil
}

// placed is one desired object: its identity, and whether kapp places it.
type placed struct {
	id     pair.Identity
	obj    *unstructured.Unstructured
	placed bool
}

// Place rewrites the matchers naming objects the package renders without a namespace so that
// they select the same resources wherever the package is installed, each rule checked with kapp's
// own matcher code against every desired object of the kinds it names; a rule for which that is
// impossible (it names some of a kind's placed objects, not all) keeps the namespace, and pinned
// lists the placed objects such rules name.
func Place(rules []Rule, p Placement) (out []Rule, pinned []pair.Identity) {
	objs := make([]placed, len(p.Desired))
	for i, u := range p.Desired {
		gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
		objs[i] = placed{pair.Identity{Group: gv.Group, Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}, u, p.Placed[i]}
	}
	pin := map[pair.Identity]bool{}
	for _, r := range rules {
		rewritten := map[pair.Identity]bool{}
		rw := func(ms []Matcher) []Matcher {
			var out []Matcher
			for _, m := range ms {
				out = appendUnique(out, simplify(placeMatcher(m, p.Namespace, objs, rewritten)))
			}
			return out
		}
		ms, rms := rw(r.Matchers), rw(r.RemoveMatchers)
		if len(rewritten) == 0 {
			out = append(out, r)
			continue
		}
		kinds := map[string]bool{}
		for id := range rewritten {
			kinds[id.Kind] = true
		}
		if !sameMatches(r.Matchers, ms, objs, kinds) || !sameMatches(r.RemoveMatchers, rms, objs, kinds) {
			maps.Copy(pin, rewritten)
			out = append(out, r)
			continue
		}
		r.Matchers, r.RemoveMatchers, r.Also = ms, rms, slices.Clone(r.Also)
		for i := range r.Also {
			r.Also[i].Matchers = ms
		}
		out = append(out, r)
	}
	return out, sortedIDs(pin)
}

// placeMatcher replaces in m each kindNamespaceNameMatcher naming a placed object by the matcher
// of its kind's placed objects, noting the objects it named in rewritten.
func placeMatcher(m Matcher, ns string, objs []placed, rewritten map[pair.Identity]bool) Matcher {
	switch {
	case m.And != nil, m.Any != nil:
		l := m.And
		if l == nil {
			l = m.Any
		}
		c := &Matchers{}
		for _, s := range l.Matchers {
			c.Matchers = append(c.Matchers, placeMatcher(s, ns, objs, rewritten))
		}
		if m.And != nil {
			return Matcher{And: c}
		}
		return Matcher{Any: c}
	case m.Not != nil:
		return Matcher{Not: &Not{Matcher: placeMatcher(m.Not.Matcher, ns, objs, rewritten)}}
	case m.KindNamespaceName == nil || m.KindNamespaceName.Namespace != ns:
		return m
	}
	k := *m.KindNamespaceName
	var hit []placed
	for _, o := range objs {
		if o.id.Kind == k.Kind && o.id.Namespace == k.Namespace && o.id.Name == k.Name {
			hit = append(hit, o)
		}
	}
	if len(hit) != 1 || !hit[0].placed {
		return m
	}
	rewritten[hit[0].id] = true
	return placedOfKind(hit[0].id, objs)
}

// placedOfKind matches the placed objects of id's group and kind: the kind's matcher (its
// desired objects' apiVersion when they share one), without the objects of the kind whose
// namespace the package sets, named.
func placedOfKind(id pair.Identity, objs []placed) Matcher {
	versions := map[string]bool{}
	var explicit []Matcher
	for _, o := range objs {
		if o.id.Group != id.Group || o.id.Kind != id.Kind {
			continue
		}
		versions[o.obj.GetAPIVersion()] = true
		if !o.placed {
			explicit = append(explicit, nameOf(o.id))
		}
	}
	kind := kindMatcher(id, sortedKeys(versions))
	switch len(explicit) {
	case 0:
		return kind
	case 1:
		return and(kind, Matcher{Not: &Not{Matcher: explicit[0]}})
	}
	return and(kind, Matcher{Not: &Not{Matcher: Matcher{Any: &Matchers{Matchers: explicit}}}})
}

// simplify flattens nested and/any matchers and drops repeated ones, so that a rule naming every
// placed object of a kind behind the kind's matcher becomes the kind's matcher.
func simplify(m Matcher) Matcher {
	switch {
	case m.Not != nil:
		return Matcher{Not: &Not{Matcher: simplify(m.Not.Matcher)}}
	case m.And == nil && m.Any == nil:
		return m
	}
	isAnd := m.And != nil
	l := m.And
	if !isAnd {
		l = m.Any
	}
	var out []Matcher
	for _, s := range l.Matchers {
		s = simplify(s)
		switch {
		case isAnd && s.And != nil:
			for _, c := range s.And.Matchers {
				out = appendUnique(out, c)
			}
		case !isAnd && s.Any != nil:
			for _, c := range s.Any.Matchers {
				out = appendUnique(out, c)
			}
		default:
			out = appendUnique(out, s)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	if isAnd {
		return Matcher{And: &Matchers{Matchers: out}}
	}
	return Matcher{Any: &Matchers{Matchers: out}}
}

func appendUnique(ms []Matcher, m Matcher) []Matcher {
	key := matcherKey(m)
	if slices.ContainsFunc(ms, func(o Matcher) bool { return matcherKey(o) == key }) {
		return ms
	}
	return append(ms, m)
}

func matcherKey(m Matcher) string {
	js, _ := json.Marshal(m) // plain strings and structs: it cannot fail
	return string(js)
}

// sameMatches reports whether kapp's matcher code selects the same desired objects of the kinds
// rewritten with before and after (other kinds are not touched by the rewrite).
func sameMatches(before, after []Matcher, objs []placed, kinds map[string]bool) bool {
	if len(before) == 0 && len(after) == 0 {
		return true
	}
	mb, mErr := KappMatchers(before)
	ma, aErr := KappMatchers(after)
	if mErr != nil || aErr != nil {
		return false
	}
	b, bOK := kappmatch.New(mb)
	a, aOK := kappmatch.New(ma)
	if !bOK || !aOK {
		return false
	}
	for _, o := range objs {
		if kinds[o.id.Kind] && b.MatchesObject(o.obj) != a.MatchesObject(o.obj) {
			return false
		}
	}
	return true
}

// PinnedWarning says why rules for objects the package renders without a namespace name the
// namespace they were analysed in, and what to do for an install elsewhere.
func PinnedWarning(ids []pair.Identity, ns string) string {
	names := make([]string, len(ids))
	kinds := map[string]bool{}
	var kindNames []string
	for i, id := range ids {
		names[i] = id.String()
		gk := pair.Identity{Group: id.Group, Kind: id.Kind}.String()
		gk = strings.TrimSuffix(gk, " ")
		if !kinds[gk] {
			kinds[gk] = true
			kindNames = append(kindNames, gk)
		}
	}
	return fmt.Sprintf("%s: the package renders it without a namespace, but the rules name namespace %s: kapp selects a resource by name only together with its namespace (kindNamespaceNameMatcher), and the rules treat the package's %s objects without a namespace differently from one another, so they hold only where the package is installed into %s (kapp-controller installs objects without a namespace into the PackageInstall's namespace, or its spec.defaultNamespace); for another namespace, generate with -n NAMESPACE, or with --output ytt --namespace-value KEY and a data value KEY holding the install namespace",
		strings.Join(names, ", "), ns, strings.Join(kindNames, ", "), ns)
}
