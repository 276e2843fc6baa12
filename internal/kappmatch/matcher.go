// Package kappmatch runs kapp's own resource matcher code for rebasegen's checks, so that lint,
// check and generate's mutation check select resources exactly as kapp does (never a
// re-implementation), safe against kapp's panics.
package kappmatch

import (
	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Matcher is kapp's own matcher for a rule's resourceMatchers: a resource matches when any of
// them does, as kapp builds it for a rebase rule (config/config.go AsMods). lint, check and
// generate's mutation check all match with it, never with a re-implementation.
type Matcher struct{ m ctlres.ResourceMatcher }

// New builds kapp's matcher; false where kapp panics building it (an empty matcher:
// "Unknown resource matcher specified"), which lint reports.
func New(ms []ctlconf.ResourceMatcher) (m Matcher, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return Matcher{ctlres.AnyMatcher{Matchers: ctlconf.ResourceMatchers(ms).AsResourceMatchers()}}, true
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
	return m.m != nil && m.m.Matches(r)
}

// MatchesObject runs kapp's matcher on an object, read the way kapp reads the object it rebases.
// Matchers on content (emptyFieldMatcher) are decided on this very object.
func (m Matcher) MatchesObject(u *unstructured.Unstructured) bool {
	return m.Matches(ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{}))
}
