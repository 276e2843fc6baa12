package synth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

func resource(apiVersion, kind, name string, fs ...classify.Finding) classify.Resource {
	group := strings.Split(apiVersion, "/")[0]
	return classify.Resource{Pair: pair.Pair{ID: pair.Identity{Group: group, Kind: kind, Namespace: "ns", Name: name},
		Desired: load.Doc{APIVersion: apiVersion, Kind: kind}}, Findings: fs}
}

func field(path string, class classify.Class, owner string) classify.Finding {
	return classify.Finding{Path: fielddiff.FromFields(strings.Split(path, ".")), Change: fielddiff.Added, Class: class, Owner: owner}
}

func TestSynthesize(t *testing.T) {
	covered := field("metadata.annotations", classify.Controller, "kube-controller-manager")
	covered.CoveredByKappDefault = true
	rep := &classify.Report{Resources: []classify.Resource{
		resource("autoscaling/v2", "HorizontalPodAutoscaler", "a", field("spec.x", classify.Defaulted, "")),
		resource("autoscaling/v1", "HorizontalPodAutoscaler", "b", field("spec.y", classify.Defaulted, "")),
		resource("apps/v1", "Deployment", "web", field("spec.replicas", classify.Controller, "kube-controller-manager"), covered),
		resource("apps/v1", "Deployment", "api", field("spec.replicas", classify.Controller, "kube-controller-manager")),
		resource("apps/v1", "Deployment", "worker", field("spec.template.spec.containers", classify.Drift, "kubectl-edit"),
			field("spec.paused", classify.Unknown, "")),
	}}
	got := Synthesize(rep, Options{})
	if len(got.Rules) != 2 {
		t.Fatalf("want 2 rules (defaults per kind, one controller rule), got %+v", got.Rules)
	}
	ctrl, defaults := got.Rules[0], got.Rules[1]
	if ns, ok := ctrl.Matchers[0].Names(); len(ctrl.Matchers) != 1 || !ok || fmt.Sprint(ns) != "[{Deployment ns api} {Deployment ns web}]" ||
		fmt.Sprint(ctrl.Sources) != "[existing new]" {
		t.Errorf("the two Deployments with the same owned path share one rule naming exactly them: %+v", ctrl)
	}
	if defaults.Matchers[0].APIGroupKind == nil || defaults.Matchers[0].APIGroupKind.APIGroup != "autoscaling" || len(defaults.Paths) != 2 ||
		fmt.Sprint(defaults.Sources) != "[new existing]" {
		t.Errorf("two apiVersions of one kind need apiGroupKindMatcher, paths merged, user wins: %+v", defaults)
	}
	if len(got.Warnings) != 0 {
		t.Errorf("no warning expected: %v", got.Warnings)
	}
	withUnknown := Synthesize(rep, Options{IncludeUnknown: true})
	if len(withUnknown.Rules) != 3 || len(withUnknown.Warnings) != 1 {
		t.Errorf("--include-unknown rules the unknown field with a warning: %d rules, %v", len(withUnknown.Rules), withUnknown.Warnings)
	}
	for _, r := range withUnknown.Rules {
		for _, p := range r.Paths {
			if strings.Join(p, ".") == "spec.template.spec.containers" || strings.Join(p, ".") == "metadata.annotations" {
				t.Errorf("drift and covered fields are never ruled: %v", p)
			}
		}
	}
}

// One warning line per field and text, naming the first resources: at fleet scale a line per
// resource would bury the rest of stderr.
func TestWarningsAreGroupedAcrossResources(t *testing.T) {
	warned := func(name string) classify.Resource {
		f := field("spec.replicas", classify.Controller, "kube-controller-manager")
		f.Change, f.Warning = fielddiff.Modified, "remove it from the manifest"
		return resource("apps/v1", "Deployment", name, f)
	}
	rep := &classify.Report{Resources: []classify.Resource{warned("a")}}
	if got := Synthesize(rep, Options{}).Warnings; strings.Join(got, "\n") != "apps/Deployment ns/a spec.replicas: remove it from the manifest" {
		t.Errorf("one resource: %q", got)
	}
	for _, n := range []string{"b", "c", "d", "e"} {
		rep.Resources = append(rep.Resources, warned(n))
	}
	want := "apps/Deployment ns/a, apps/Deployment ns/b, apps/Deployment ns/c and 2 more spec.replicas: remove it from the manifest"
	if got := Synthesize(rep, Options{}).Warnings; strings.Join(got, "\n") != want {
		t.Errorf("five resources:\n got %q\nwant %q", got, want)
	}
}

// A rule carries typed provenance (issue 10): the classes of its fields, the managers owning the
// controller-owned ones, and the identities of the pairs it was made for, in the order of their
// names as the comment lists them ("ns-x/a" before "ns/b": '-' sorts before '/').
func TestRuleProvenance(t *testing.T) {
	in := func(ns, name string, f classify.Finding) classify.Resource {
		r := resource("apps/v1", "Deployment", name, f)
		r.ID.Namespace = ns
		return r
	}
	rep := &classify.Report{Resources: []classify.Resource{
		in("ns", "b", field("spec.replicas", classify.Controller, "kube-controller-manager")),
		in("ns-x", "a", field("spec.replicas", classify.Controller, "hpa")),
		in("ns", "b", field("spec.progressDeadlineSeconds", classify.Defaulted, "")),
		in("ns", "c", field("spec.revisionHistoryLimit", classify.Calculated, "")),
	}}
	got := Synthesize(rep, Options{}).Rules
	if len(got) != 2 {
		t.Fatalf("want a kind rule and one controller rule for both Deployments, got %+v", got)
	}
	kind, ctrl := got[0], got[1]
	if fmt.Sprint(kind.Classes) != "[calculated defaulted]" || len(kind.Owners) != 0 || fmt.Sprint(kind.Resources) != "[apps/Deployment ns/b apps/Deployment ns/c]" {
		t.Errorf("kind rule: classes %v, owners %v, resources %v", kind.Classes, kind.Owners, kind.Resources)
	}
	if fmt.Sprint(ctrl.Classes) != "[controller]" || fmt.Sprint(ctrl.Owners) != "[hpa kube-controller-manager]" ||
		fmt.Sprint(ctrl.Resources) != "[apps/Deployment ns-x/a apps/Deployment ns/b]" {
		t.Errorf("controller rule: classes %v, owners %v, resources %v", ctrl.Classes, ctrl.Owners, ctrl.Resources)
	}
}
