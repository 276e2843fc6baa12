package synth

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/value"

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

// Which declared zero values the server drops become a remove rule (no ytt): an empty value ([],
// {}, null) the live object lacks, at a path of map keys and indexes. A null the live object
// holds, a scalar (false), or a list item selected by key stays a ytt rewrite: kapp's engine
// shows a removed null, its emptyFieldMatcher never counts a scalar as empty, and its remove
// cannot select an item by key.
func TestDroppedEmptyValuesAreRemoveRules(t *testing.T) {
	dropped := func(path string, desired any, change fielddiff.Change) classify.Finding {
		return classify.Finding{Path: fielddiff.FromFields(strings.Split(path, ".")), Change: change, Class: classify.Defaulted, Desired: desired}
	}
	keyed := dropped("x", []any{}, fielddiff.Removed)
	name := "a"
	keyed.Path = fielddiff.Path{{FieldName: &name}, {Key: &value.FieldList{{Name: "name", Value: value.NewValueInterface("c")}}}, {FieldName: &name}}
	rep := &classify.Report{Resources: []classify.Resource{
		resource("v1", "Thing", "one", dropped("spec.list", []any{}, fielddiff.Removed), dropped("spec.map", map[string]any{}, fielddiff.Removed),
			dropped("spec.flag", false, fielddiff.Removed), keyed),
		resource("v1", "Thing", "two", dropped("spec.list", []any{}, fielddiff.Removed), dropped("spec.null", []any{}, fielddiff.Modified)),
	}}
	var got []string
	for _, r := range Synthesize(rep, Options{}).Rules {
		for _, rw := range r.Rewrites {
			got = append(got, "ytt "+rw.Path.String())
		}
		if r.Drop != nil {
			var names []string
			for _, id := range r.Resources {
				names = append(names, id.Name)
			}
			and := r.Matchers[0].And.Matchers
			empty := and[len(and)-1].EmptyField
			got = append(got, fmt.Sprintf("remove %s of %s while %v is empty", r.Drop, strings.Join(names, ","), empty.Path))
		}
	}
	want := "ytt a[name=c].a\nytt spec.flag\nytt spec.null\n" +
		"remove spec.list of one,two while [spec list] is empty\nremove spec.map of one while [spec map] is empty"
	if strings.Join(got, "\n") != want {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// ytt rules naming the same resources are one ytt rule (Rule.Also): kapp evaluates a ytt rule once
// per resource it matches. Two Deployments with a controller's container (a ytt rule naming both)
// and a quantity the server rewrote (the kind's rewrite rule naming both) get one ytt rule, both
// parts kept with their own sources; a third Deployment with another container keeps its own. A
// fourth with only the quantity, which the kind's rewrite rule names beside a and b, keeps the
// rewrite rule alone: a and b still run one evaluation (the fixture mix's sidecar Deployments,
// which the kind's keyed rule named among the image-pull-policy ones, ran two).
func TestOneYTTRulePerResources(t *testing.T) {
	containers, name := "containers", "name"
	sidecar := classify.Finding{Path: fielddiff.Path{{FieldName: &containers}, {Key: &value.FieldList{{Name: name, Value: value.NewValueInterface("proxy")}}}},
		Change: fielddiff.Added, Class: classify.Controller, Owner: "injector", Live: map[string]any{"name": "proxy"}}
	envoy := sidecar
	envoy.Path = fielddiff.Path{{FieldName: &containers}, {Key: &value.FieldList{{Name: name, Value: value.NewValueInterface("envoy")}}}}
	quantity := classify.Finding{Path: fielddiff.FromFields([]string{"spec", "cpu"}), Change: fielddiff.Canonical, Class: classify.Defaulted, Desired: "1000m", Live: "1"}
	rep := &classify.Report{Resources: []classify.Resource{
		resource("apps/v1", "Deployment", "a", sidecar, quantity),
		resource("apps/v1", "Deployment", "b", sidecar, quantity),
		resource("apps/v1", "Deployment", "c", envoy),
		resource("apps/v1", "Deployment", "d", quantity),
	}}
	var got []string
	for _, r := range Synthesize(rep, Options{}).Rules {
		if !r.YTT() {
			continue
		}
		var parts []string
		for _, p := range r.Parts() {
			var names []string
			for _, id := range p.Resources {
				names = append(names, id.Name)
			}
			parts = append(parts, fmt.Sprintf("%s %v %s", strings.Join(names, ","), p.Sources, ytyKey(p)))
		}
		got = append(got, strings.Join(parts, " + "))
	}
	want := "a,b [existing new] containers[name=proxy] + a,b [new existing] spec.cpu\nd [new existing] spec.cpu\nc [existing new] containers[name=envoy]"
	if strings.Join(got, "\n") != want {
		t.Errorf("ytt rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}
