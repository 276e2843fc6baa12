package synth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// A controller's plain copy takes the live object alone where that copies what [existing, new]
// does; not through metadata (kapp's first rule copies it from the live object), nor where a ytt or
// remove rule changes a resource of the kind first (generated, or kapp's own ServiceAccount rule).
func TestControllerCopiesFromTheLiveObjectAlone(t *testing.T) {
	owned := func(path string) classify.Finding { return field(path, classify.Controller, "kube-controller-manager") }
	id := func(kind, name string) pair.Identity { return pair.Identity{Kind: kind, Namespace: "ns", Name: name} }
	apps := func(name string) pair.Identity { i := id("Deployment", name); i.Group = "apps"; return i }
	rewrite := classify.Finding{Path: fielddiff.FromFields([]string{"spec", "x"}), Change: fielddiff.Canonical, Class: classify.Defaulted, Desired: "1", Live: int64(1)}
	rep := &classify.Report{Resources: []classify.Resource{
		object(t, apps("scaled"), "apps/v1", nil, nil, owned("spec.replicas")),
		object(t, apps("finalized"), "apps/v1", nil, nil, owned("metadata.finalizers")),
		object(t, apps("annotated"), "apps/v1", nil, nil, owned("metadata.annotations.x")),
		object(t, id("ServiceAccount", "sa"), "v1", nil, nil, owned("secrets")),
		object(t, id("ConfigMap", "filled"), "v1", nil, nil, owned("data.ca")),
		object(t, id("ConfigMap", "rewritten"), "v1", nil, nil, rewrite),
	}}
	var got []string
	for _, r := range Synthesize(rep, Options{}).Rules {
		if r.YTT() {
			continue
		}
		got = append(got, fmt.Sprint(describe(r), " ", r.Sources))
	}
	want := []string{
		"data.ca names=filled [existing new]", // a ytt rule rewrites another ConfigMap
		"metadata.annotations.x names=annotated [existing]",
		"metadata.finalizers names=finalized [existing new]",
		"spec.replicas names=scaled [existing]",
		"secrets names=sa [existing new]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
