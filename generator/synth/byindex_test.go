package synth

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// deployment is a Deployment pair whose pod spec holds the given containers and securityContext.
func deployment(t *testing.T, name string, desired, live []string, liveSC map[string]any, fs ...classify.Finding) classify.Resource {
	doc := func(containers []string, sc map[string]any) load.Doc {
		var cs []any
		for _, c := range containers {
			cs = append(cs, map[string]any{"name": c, "image": c})
		}
		spec := map[string]any{"containers": cs}
		if sc != nil {
			spec["securityContext"] = sc
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec":     map[string]any{"template": map[string]any{"spec": spec}}}}
		d, err := load.NewDoc(load.Object{Unstructured: u})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return classify.Resource{Pair: pair.Pair{ID: pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: name},
		Desired: doc(desired, nil), Live: doc(live, liveSC)}, Findings: fs}
}

func containerField(name, field string) classify.Finding {
	p := fielddiff.Path(fieldpath.MakePathOrDie("spec", "template", "spec", "containers",
		&value.FieldList{{Name: "name", Value: value.NewValueInterface(name)}}, field))
	return classify.Finding{Path: p, Change: fielddiff.Added, Class: classify.Defaulted, Live: "IfNotPresent"}
}

func emptySecurityContext() classify.Finding {
	return classify.Finding{Path: fielddiff.FromFields([]string{"spec", "template", "spec", "securityContext"}),
		Change: fielddiff.Added, Class: classify.Defaulted, Live: map[string]any{}}
}

// Items that line up by index get a plain copy; reordered items, and an empty map whose live
// value is not empty on some resource, keep ytt rules naming exactly those resources.
func TestPlainCopiesOnlyWhereTheyAreRight(t *testing.T) {
	rep := &classify.Report{Resources: []classify.Resource{
		deployment(t, "aligned", []string{"a", "b"}, []string{"a", "b", "sidecar"}, map[string]any{},
			containerField("a", "imagePullPolicy"), emptySecurityContext()),
		deployment(t, "reordered", []string{"a", "b"}, []string{"b", "a"}, map[string]any{},
			containerField("a", "imagePullPolicy"), emptySecurityContext()),
		deployment(t, "filled", []string{"a"}, []string{"a"}, map[string]any{"runAsUser": int64(1)}),
	}}
	got := Synthesize(rep, Options{})
	var lines []string
	for _, r := range got.Rules {
		var names []string
		for _, m := range r.Matchers {
			m.Walk(func(m Matcher) {
				if m.KindNamespaceName != nil {
					names = append(names, m.KindNamespaceName.Name)
				}
			})
		}
		var paths []string
		for _, p := range r.Paths {
			paths = append(paths, strings.Join(p, "."))
		}
		for _, p := range r.Indexed {
			paths = append(paths, indexKey(p)[1:])
		}
		for _, p := range append(r.Keyed, r.Empty...) {
			paths = append(paths, "ytt:"+p.String())
		}
		lines = append(lines, strings.Join(paths, ",")+" names="+strings.Join(names, ","))
		if r.YTT() && r.ByKey == "" {
			t.Errorf("a ytt rule without its reason: %+v", r)
		}
	}
	want := []string{ // a plain rule for the kind except the resources named, a ytt rule for those
		"spec.template.spec.containers[*].imagePullPolicy names=reordered",
		"spec.template.spec.securityContext names=filled",
		"ytt:spec.template.spec.securityContext names=filled",
		"ytt:spec.template.spec.containers[name=a].imagePullPolicy names=reordered",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
