package lint

// Names of versioned resources (kapp.k14s.io/versioned) in rebase rules.

import (
	"fmt"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// versionedNames warns of each kindNamespaceNameMatcher of rebase rule r naming a desired object
// kapp deploys as a versioned resource: kapp renames it NAME-ver-(N+1) before its rebase rules
// run (diff/change_set_with_versioned_rs.go assignNewNames) and diffs it against the live
// NAME-ver-N, so the name never matches it (newcomer13 N13-7: a rules Secret's copy of a
// versioned Secret's type did nothing, and kapp made a new version on every deploy). With
// kapp.k14s.io/versioned-keep-original kapp also diffs a copy named NAME, which it matches.
func (c *checker) versionedNames(a at, r ctlconf.RebaseRule) {
	var walk func(m ctlconf.ResourceMatcher, item at)
	walk = func(m ctlconf.ResourceMatcher, item at) {
		switch {
		case m.KindNamespaceNameMatcher != nil:
			k := m.KindNamespaceNameMatcher
			for _, res := range c.byName[[3]string{k.Kind, k.Namespace, k.Name}] {
				anns := res.obj.GetAnnotations()
				_, versioned := anns[kappconv.Versioned]
				_, original := anns[kappconv.VersionedKeepOriginal]
				if !versioned || original {
					continue
				}
				ns := ""
				if k.Namespace != "" {
					ns = fmt.Sprintf("{hasNamespaceMatcher: {names: [%s]}}, ", flow(k.Namespace))
				}
				c.add(Warning, item, fmt.Sprintf("%s names a versioned resource (%s): kapp renames it %s before its rebase rules run and diffs it against the live %s, so this matcher never matches it",
					describe(item), kappconv.Versioned, kappconv.VersionedName(k.Name, 2), kappconv.VersionedName(k.Name, 1)),
					fmt.Sprintf("andMatcher: {matchers: [{apiGroupKindMatcher: {apiGroup: %s, kind: %s}}, %s{hasAnnotationMatcher: {keys: [%s]}}]} (every versioned %[2]s there; kapp has no matcher for a name prefix)",
						flow(res.id.Group), flow(k.Kind), ns, kappconv.Versioned))
				return
			}
		case m.AnyMatcher != nil:
			for i, sub := range m.AnyMatcher.Matchers {
				walk(sub, nth(item.field("anyMatcher").field("matchers"), i))
			}
		case m.AndMatcher != nil:
			for i, sub := range m.AndMatcher.Matchers {
				walk(sub, nth(item.field("andMatcher").field("matchers"), i))
			}
		case m.NotMatcher != nil:
			walk(m.NotMatcher.Matcher, orElse(item.field("notMatcher").field("matcher"), item))
		}
	}
	for i, item := range a.field("resourceMatchers").items() {
		walk(r.ResourceMatchers[i], item)
	}
}
