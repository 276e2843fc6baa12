package synth

import (
	"fmt"
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// A rule naming several resources of a kind puts the kind's matcher first: kapp's own matcher
// code selects exactly the named resources, and a resource of another kind fails on the kind.
func TestNamesMatchExactlyTheNamedResources(t *testing.T) {
	owned := func(apiVersion, kind, ns, name string) classify.Resource {
		r := resource(apiVersion, kind, name, field("spec.replicas", classify.Controller, "kube-controller-manager"))
		r.ID.Namespace = ns
		return r
	}
	rep := &classify.Report{Resources: []classify.Resource{
		owned("apps/v1", "Deployment", "a", "web"),
		owned("apps/v1", "Deployment", "b", "web"),
		owned("apps/v1", "Deployment", "a", "api"),
		owned("apps/v1", "StatefulSet", "a", "db"),
		resource("apps/v1", "Deployment", "other", field("spec.x", classify.Defaulted, "")),
	}}
	rules := Synthesize(rep, Options{}).Rules
	var ctrl *Rule
	for i, r := range rules {
		if r.ControllerWins() {
			ctrl = &rules[i]
		}
	}
	if ctrl == nil || len(ctrl.Matchers) != 2 || ctrl.Matchers[0].And == nil || ctrl.Matchers[0].And.Matchers[0].APIVersionKind == nil ||
		ctrl.Matchers[1].KindNamespaceName == nil {
		t.Fatalf("want one rule: the Deployments behind apiVersionKindMatcher, the StatefulSet by its name alone; got %+v", rules)
	}
	if got := fmt.Sprint(byName(named(map[pair.Identity]bool{rep.Resources[0].ID: true, rep.Resources[4].ID: true}, ctrl.Matchers))); got != "[apps/Deployment a/web]" {
		t.Errorf("named: %s", got)
	}
	ms, err := KappMatchers(ctrl.Matchers)
	m, ok := kappmatch.New(ms)
	if err != nil || !ok {
		t.Fatalf("kapp cannot read the matchers: %v", err)
	}
	obj := func(apiVersion, kind, ns, name string) ctlres.Resource {
		u := unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"namespace": ns, "name": name}}}
		return ctlres.NewResourceUnstructured(u, ctlres.ResourceType{})
	}
	for _, c := range []struct {
		res  ctlres.Resource
		want bool
	}{
		{obj("apps/v1", "Deployment", "a", "web"), true},
		{obj("apps/v1", "Deployment", "b", "web"), true},
		{obj("apps/v1", "Deployment", "a", "api"), true},
		{obj("apps/v1", "StatefulSet", "a", "db"), true},
		{obj("apps/v1", "Deployment", "b", "api"), false},
		{obj("apps/v1", "Deployment", "other", "x"), false},
		{obj("autoscaling/v2", "HorizontalPodAutoscaler", "a", "web"), false},
		{obj("apps/v1", "StatefulSet", "a", "web"), false},
	} {
		if got := m.Matches(c.res); got != c.want {
			t.Errorf("%s: kapp matches %v, want %v", c.res.Description(), got, c.want)
		}
	}
}
