package kappmatch

import (
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Matcher (with its index of names) decides every resource as kapp's AnyMatcher of the rule's
// matchers does, a panic counting as no match, for rules naming resources in every shape.
func TestMatchesAsKapp(t *testing.T) {
	rules := []string{
		// a flat list of names, and the same names behind the kind (what generate writes)
		`[{kindNamespaceNameMatcher: {kind: Deployment, namespace: a, name: web}}, {kindNamespaceNameMatcher: {kind: Deployment, namespace: a, name: api}}]`,
		`[{andMatcher: {matchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}, {anyMatcher: {matchers: [
			{kindNamespaceNameMatcher: {kind: Deployment, namespace: a, name: web}}, {kindNamespaceNameMatcher: {kind: Deployment, namespace: b, name: web}}]}}]}}]`,
		// names behind a condition on content, and excluded names
		`[{andMatcher: {matchers: [{anyMatcher: {matchers: [{kindNamespaceNameMatcher: {kind: Deployment, namespace: a, name: web}}, {hasNamespaceMatcher: {}}]}},
			{notMatcher: {matcher: {hasAnnotationMatcher: {keys: [skip]}}}}]}}]`,
		`[{andMatcher: {matchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}, {notMatcher: {matcher: {anyMatcher: {matchers: [
			{kindNamespaceNameMatcher: {kind: Deployment, namespace: a, name: web}}]}}}}]}}]`,
		// a matcher kapp panics on, tried before the name: kapp stops there
		`[{emptyFieldMatcher: {path: [spec, {regex: x}]}}, {kindNamespaceNameMatcher: {kind: Deployment, namespace: a, name: web}}]`,
		`[{kindNamespaceNameMatcher: {kind: Deployment, namespace: a, name: web}}, {apiGroupKindMatcher: {apiGroup: apps, kind: Deployment}}]`,
	}
	objs := []string{
		`{apiVersion: apps/v1, kind: Deployment, metadata: {namespace: a, name: web}, spec: [1]}`,
		`{apiVersion: apps/v1, kind: Deployment, metadata: {namespace: a, name: web, annotations: {skip: ""}}, spec: {}}`,
		`{apiVersion: apps/v1beta1, kind: Deployment, metadata: {namespace: a, name: web}, spec: {}}`,
		`{apiVersion: a/b/c, kind: Deployment, metadata: {namespace: a, name: web}}`,
		`{apiVersion: apps/v1, kind: Deployment, metadata: {namespace: b, name: web}, spec: {x: 1}}`,
		`{apiVersion: apps/v1, kind: Deployment, metadata: {namespace: a, name: api}, spec: {x: 1}}`,
		`{apiVersion: apps/v1, kind: StatefulSet, metadata: {namespace: a, name: web}, spec: {x: 1}}`,
		`{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {namespace: a, name: web}}`,
	}
	got := map[[2]int]bool{}
	for ri, rule := range rules {
		var ms []ctlconf.ResourceMatcher
		if err := yaml.Unmarshal([]byte(rule), &ms); err != nil {
			t.Fatal(err)
		}
		m, ok := New(ms)
		if !ok {
			t.Fatalf("%s: kapp cannot build it", rule)
		}
		kapp := ctlres.AnyMatcher{Matchers: ctlconf.ResourceMatchers(ms).AsResourceMatchers()}
		for oi, o := range objs {
			var u unstructured.Unstructured
			if err := yaml.Unmarshal([]byte(o), &u.Object); err != nil {
				t.Fatal(err)
			}
			want := func() (ok bool) {
				defer func() {
					if recover() != nil {
						ok = false
					}
				}()
				return kapp.Matches(ctlres.NewResourceUnstructured(u, ctlres.ResourceType{}))
			}()
			if got := m.MatchesObject(&u); got != want {
				t.Errorf("rule %s\nobject %s: Matches %t, kapp %t", rule, o, got, want)
			}
			got[[2]int{ri, oi}] = want

		}
	}
	// what the cases are there for: a named Deployment behind its kind, another kind with the
	// name, and a name kapp never reaches because a matcher before it panics
	if !got[[2]int{1, 0}] || got[[2]int{1, 7}] || got[[2]int{4, 0}] || !got[[2]int{4, 7}] {
		t.Errorf("the cases no longer cover what they did: %v", got)
	}
}
