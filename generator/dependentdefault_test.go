package generator_test

import (
	"reflect"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/rulesets"
)

const (
	webPolicy = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web
spec:
  podSelector:
    matchLabels: {app: web}
  ingress:
  - ports:
    - port: 80
`
	dbPolicy = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: db
spec:
  podSelector:
    matchLabels: {app: db}
  ingress:
  - from:
    - podSelector:
        matchLabels: {app: web}
`
	apiPolicy = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: api
spec:
  podSelector:
    matchLabels: {app: api}
  egress:
  - to:
    - podSelector:
        matchLabels: {app: db}
`
	egressRule = `  egress:
  - to:
    - podSelector:
        matchLabels: {app: db}
`
)

// A NetworkPolicy's manifest without policyTypes is defaulted [Ingress] while it has no egress
// rule and [Ingress, Egress] with one. The generated copy of the live policyTypes was kind-wide:
// once Git added egress rules to a policy, kapp applied the copied [Ingress] and the egress rules
// were never enforced (newcomer10 N10-8); and where another policy had egress rules, the one Git
// took them from kept [Ingress, Egress]. The copy acts only while spec.egress is as empty in the
// manifest as on the policies it was made for (rulesets/dependent.yaml), each state's rule naming
// its policies where both occur. The oracle is kapp's own deploy diff under the generated rules,
// under both bases: the object kapp applies holds no policyTypes, which the manifest does not
// declare, so the API server defaults it from the new manifest. check names the hand-written
// kind-wide copy on the same pull request as hiding the change, a default the server gives the
// manifest otherwise, not a removal made in Git (the manifest never declared it).
func TestPolicyTypesCopyFollowsTheEgressRules(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after []string
		changed       []string // the policies whose default the pull request changes
	}{
		{"egress added", []string{webPolicy, dbPolicy}, []string{webPolicy + egressRule, dbPolicy}, []string{"web"}},
		{"egress added and removed", []string{webPolicy, dbPolicy, apiPolicy},
			[]string{webPolicy + egressRule, dbPolicy, strings.Replace(apiPolicy, egressRule, "  ingress:\n  - {}\n", 1)}, []string{"web", "api"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", strings.Join(tc.before, "---\n")))
			before := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", strings.Join(tc.before, "---\n"))}, Live: []string{live}, Namespace: "shop"}
			rules, _ := generatedRules(t, before)
			pr := generator.Inputs{Desired: []string{writeFile(t, "pr.yaml", strings.Join(tc.after, "---\n"))}, Live: []string{live}, Namespace: "shop"}
			for _, against := range []bool{true, false} {
				updated := map[string]bool{}
				for _, ch := range kapptest.Changes(t, pr.Desired, pr.Live[0], pr.Namespace, []string{rules}, against) {
					name := ch.NewResource().Name()
					if ch.Op() != ctldiff.ChangeOpUpdate {
						continue
					}
					updated[name] = true
					if pt, ok := ch.NewResource().UnstructuredObject()["spec"].(map[string]any)["policyTypes"]; ok {
						t.Errorf("against last applied %v: kapp applies %s with policyTypes %v, the default of the manifest before the change", against, name, pt)
					}
				}
				for _, name := range tc.changed {
					if !updated[name] {
						t.Errorf("against last applied %v: kapp does not update %s", against, name)
					}
				}
			}
			checkedClean(t, pr, rules)
			kindWide := writeFile(t, "kind-wide.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [spec, policyTypes]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: networking.k8s.io/v1, kind: NetworkPolicy}
`)
			c, err := generator.Check(pr, []string{kindWide})
			if err != nil {
				t.Fatal(err)
			}
			var hidden []string
			for _, h := range c.Hidden {
				hidden = append(hidden, h.Resource.Name+" "+h.Path)
				if h.Removed || !h.Redefaulted {
					// the manifest never declared policyTypes: no removal made in Git
					t.Errorf("check with the kind-wide copy: %s %s: removed %v, redefaulted %v (%s)", h.Resource.Name, h.Path, h.Removed, h.Redefaulted, h.How)
				}
			}
			var want []string
			for _, name := range tc.changed {
				want = append(want, name+" spec.policyTypes")
			}
			if !reflect.DeepEqual(sorted(hidden), sorted(want)) {
				t.Errorf("check with the kind-wide copy: hidden %v, want %v", hidden, want)
			}
		})
	}
}

// Every dependent default of the rulesets is one the API server's defaulting code chooses by the
// fields named: defaulted with each empty and with each holding an item, the field differs.
func TestDependentDefaultsAreTheServers(t *testing.T) {
	rs, err := rulesets.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Dependent) == 0 {
		t.Fatal("no dependent defaults")
	}
	for _, d := range rs.Dependent {
		defaulted := func(filled bool) any {
			gvk := schema.GroupVersionKind{Group: d.Group, Version: "v1", Kind: d.Kind}
			u := &unstructured.Unstructured{Object: map[string]any{}}
			u.SetGroupVersionKind(gvk)
			for _, e := range d.Empty {
				if filled {
					if err := unstructured.SetNestedSlice(u.Object, []any{map[string]any{}}, strings.Split(e, ".")...); err != nil {
						t.Fatal(err)
					}
				}
			}
			v, _, _ := unstructured.NestedFieldNoCopy(kapptest.Defaulted(t, u.Object), strings.Split(d.Path, ".")...)
			return v
		}
		if empty, filled := defaulted(false), defaulted(true); empty == nil || reflect.DeepEqual(empty, filled) {
			t.Errorf("%s %s: the server defaults %v with %v empty and %v with them filled", d.Kind, d.Path, empty, d.Empty, filled)
		}
	}
}
