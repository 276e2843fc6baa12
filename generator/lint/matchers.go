package lint

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"

	"github.com/rebasegen/rebasegen/internal/kappmatch"
	"github.com/rebasegen/rebasegen/internal/words"
)

// matchers checks every matcher; valid[i] says whether top-level matcher i can match anything.
func (c *checker) matchers(a at, r ctlconf.RebaseRule) (valid []bool) {
	list := a.field("resourceMatchers")
	if len(r.ResourceMatchers) == 0 {
		c.add(Warning, orElse(list, a), "no resourceMatchers: the rule applies to nothing", "")
	}
	for i, item := range list.items() {
		valid = append(valid, c.matcher(r.ResourceMatchers[i], item))
	}
	return valid
}

func orElse(a, b at) at {
	if a.present() {
		return a
	}
	return b
}

func nth(list at, i int) at {
	if items := list.items(); i < len(items) {
		return items[i]
	}
	return list
}

func (c *checker) matcher(m ctlconf.ResourceMatcher, a at) bool {
	var set []string
	v := reflect.ValueOf(m)
	for i := 0; i < v.NumField(); i++ {
		if !v.Field(i).IsNil() {
			set = append(set, jsonName(matcherType.Field(i)))
		}
	}
	switch len(set) {
	case 0:
		c.add(Error, a, `empty matcher: kapp panics ("Unknown resource matcher specified")`, "one of: "+strings.Join(names(matcherFields), ", "))
		return false
	case 1:
	default:
		c.add(Error, a, fmt.Sprintf("one matcher sets %s: kapp uses one of them and ignores the rest", strings.Join(set, " and ")),
			"one matcher per list item (any of them matches), or andMatcher")
	}
	ok := true
	if m.AnyMatcher != nil {
		for i, sub := range m.AnyMatcher.Matchers {
			ok = c.matcher(sub, nth(a.field("anyMatcher").field("matchers"), i)) && ok
		}
	}
	if m.AndMatcher != nil {
		for i, sub := range m.AndMatcher.Matchers {
			ok = c.matcher(sub, nth(a.field("andMatcher").field("matchers"), i)) && ok
		}
	}
	if m.NotMatcher != nil {
		ok = c.matcher(m.NotMatcher.Matcher, orElse(a.field("notMatcher").field("matcher"), a)) && ok
	}
	if e := m.EmptyFieldMatcher; e != nil {
		for i, part := range e.Path {
			if part.MapKey == nil && part.ArrayIndex == nil { // a {regex: ...}
				path := a.field("emptyFieldMatcher").field("path")
				c.add(Error, orElse(nth(path, i), path), fmt.Sprintf("emptyFieldMatcher path part %d is no key or index: kapp panics (\"Unexpected path part\") on every resource that has the fields before it (resources/matcher_empty_field.go)", i),
					"name the key, or index the list")
				ok = false
			}
		}
	}
	if k := m.KindNamespaceNameMatcher; k != nil && k.Namespace != "" && c.scope.ClusterScopedKind(k.Kind) {
		knn := a.field("kindNamespaceNameMatcher")
		c.add(Error, orElse(knn.field("namespace"), knn),
			fmt.Sprintf("kindNamespaceNameMatcher: %s is cluster-scoped, so namespace %q never matches (kapp compares namespaces exactly and cluster-scoped objects have none)", k.Kind, k.Namespace),
			fmt.Sprintf(`kindNamespaceNameMatcher: {kind: %s, namespace: "", name: %s}`, k.Kind, k.Name))
		ok = false
	}
	return ok
}

// unmatched reports matchers that match none of the desired objects: a stale apiVersion, a
// renamed resource, a kind the package no longer ships. Each name of a list of names behind an
// andMatcher (what generate writes for several resources of a kind) counts as a matcher of its own.
func (c *checker) unmatched(a at, r ctlconf.RebaseRule, valid []bool) {
	for i, item := range a.field("resourceMatchers").items() {
		m := r.ResourceMatchers[i]
		if !valid[i] || m.AllMatcher != nil {
			continue
		}
		if len(c.matching(c.candidates(m), []ctlconf.ResourceMatcher{m})) == 0 {
			hint, fact := c.nearMiss(m)
			c.advise(fact, Warning, item, describe(item)+" matches none of the desired objects", hint)
			continue
		}
		if m.AndMatcher == nil {
			continue
		}
		for j, sub := range m.AndMatcher.Matchers {
			if sub.AnyMatcher == nil || !namesOnly(sub) {
				continue
			}
			list := nth(item.field("andMatcher").field("matchers"), j).field("anyMatcher").field("matchers")
			for k, name := range sub.AnyMatcher.Matchers {
				alone := slices.Clone(m.AndMatcher.Matchers)
				alone[j] = name
				and := ctlconf.ResourceMatcher{AndMatcher: &ctlconf.AndMatcher{Matchers: alone}}
				if len(c.matching(c.candidates(and), []ctlconf.ResourceMatcher{and})) == 0 {
					at := nth(list, k)
					msg, hint, fact := c.noneWith(name, m.AndMatcher.Matchers, j, item.field("andMatcher").field("matchers"))
					c.advise(fact, Warning, at, describe(at)+msg, hint)
				}
			}
		}
	}
}

// noneWith says why a name of the anyMatcher at ands[j] selects nothing with the andMatcher's
// other matchers: the object it names is missing (what the desired objects of its kind are
// called), or it is there and fails the others (which, with their lines), where "matches
// none of the desired objects" listed the very object it said was missing (newcomer11 N11-4).
func (c *checker) noneWith(name ctlconf.ResourceMatcher, ands []ctlconf.ResourceMatcher, j int, items at) (msg, hint string, fact bool) {
	named := c.matching(c.candidates(name), []ctlconf.ResourceMatcher{name})
	if len(named) == 0 {
		hint, fact := c.nearMiss(name)
		return " matches none of the desired objects", hint, fact
	}
	var failed []string
	for i, other := range ands {
		if i != j && len(c.matching(named, []ctlconf.ResourceMatcher{other})) == 0 {
			failed = append(failed, fmt.Sprintf("%s (line %d)", describe(nth(items, i)), c.line(nth(items, i))))
		}
	}
	ids := make([]string, len(named))
	for i, r := range named {
		ids[i] = r.id.String()
	}
	msg = fmt.Sprintf(" names the desired %s, but no desired object matches the whole andMatcher with it", strings.Join(ids, ", "))
	if len(failed) > 0 {
		msg += ": it fails " + strings.Join(failed, " and ")
	}
	return msg, "remove the name: kapp never applies the rule to the object it names", false
}

// candidates are the resources m can match: those a kindNamespaceNameMatcher it requires (itself,
// or one among its andMatcher's) names, else all. At fleet scale, checking each of 5,000 names
// against every resource took lint 30 s.
func (c *checker) candidates(m ctlconf.ResourceMatcher) []resource {
	ms := []ctlconf.ResourceMatcher{m}
	if m.AndMatcher != nil {
		ms = m.AndMatcher.Matchers
	}
	for _, m := range ms {
		if k := m.KindNamespaceNameMatcher; k != nil && c.byName != nil {
			return c.byName[[3]string{k.Kind, k.Namespace, k.Name}]
		}
	}
	return c.resources
}

// namesOnly reports whether m selects named resources only: a kindNamespaceNameMatcher, an
// anyMatcher of such matchers, or an andMatcher with one among its matchers.
func namesOnly(m ctlconf.ResourceMatcher) bool {
	switch {
	case m.KindNamespaceNameMatcher != nil:
		return true
	case m.AnyMatcher != nil:
		return len(m.AnyMatcher.Matchers) > 0 && !slices.ContainsFunc(m.AnyMatcher.Matchers, func(m ctlconf.ResourceMatcher) bool { return !namesOnly(m) })
	case m.AndMatcher != nil:
		return slices.ContainsFunc(m.AndMatcher.Matchers, namesOnly)
	}
	return false
}

// describe renders a matcher item as flow YAML: apiVersionKindMatcher {apiVersion: apps/v1, kind: Deployment}.
func describe(item at) string {
	var parts []string
	for _, k := range item.keys() {
		s := k + " " + flow(item.field(k).v)
		if len(s) > 120 {
			s = k
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func flow(v any) string {
	switch t := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(t))
		for i, k := range keys {
			keys[i] = k + ": " + flow(t[k])
		}
		return "{" + strings.Join(keys, ", ") + "}"
	case []any:
		items := make([]string, len(t))
		for i, x := range t {
			items[i] = flow(x)
		}
		return "[" + strings.Join(items, ", ") + "]"
	case string:
		if t == "" {
			return `""`
		}
		return t
	}
	return fmt.Sprint(v)
}

// nearMiss says what the desired objects of the matcher's kind look like (fact), or, when there
// are none, to remove the matcher.
func (c *checker) nearMiss(m ctlconf.ResourceMatcher) (hint string, fact bool) {
	var kind, what string
	var show func(resource) string
	switch {
	case m.APIVersionKindMatcher != nil:
		kind, what = m.APIVersionKindMatcher.Kind, "apiVersion"
		show = func(r resource) string { return r.obj.GetAPIVersion() }
	case m.APIGroupKindMatcher != nil:
		kind, what = m.APIGroupKindMatcher.Kind, "apiGroup"
		show = func(r resource) string { return fmt.Sprintf("%q", r.id.Group) }
	case m.KindNamespaceNameMatcher != nil:
		kind, what = m.KindNamespaceNameMatcher.Kind, "namespace/name"
		show = func(r resource) string { return r.id.Namespace + "/" + r.id.Name }
	default:
		return "", false
	}
	seen := map[string]bool{}
	for _, r := range c.resources {
		if r.id.Kind == kind {
			seen[show(r)] = true
		}
	}
	if len(seen) == 0 {
		return fmt.Sprintf("no desired object is %s: remove the matcher if the package no longer ships one", words.A(kind)), false
	}
	vals := make([]string, 0, len(seen))
	for v := range seen {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	return fmt.Sprintf("the desired %s objects have %s %s", kind, what, strings.Join(vals, ", ")), true
}

// matching returns the resources kapp's own matcher code says the matchers (OR-ed) select: as
// kapp prepared them, or as its built-in rules rebased them.
func (c *checker) matching(rs []resource, ms []ctlconf.ResourceMatcher) []resource {
	m, ok := kappmatch.New(ms)
	if !ok {
		return nil
	}
	var out []resource
	for _, r := range rs {
		if m.Matches(r.kapp) || r.rebased != nil && r.rebased.resource() != nil && m.Matches(r.rebased.resource()) {
			out = append(out, r)
		}
	}
	return out
}
