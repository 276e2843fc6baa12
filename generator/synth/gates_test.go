package synth

import (
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// A path through list items that some resource's manifest cannot reach (no container has ports)
// is a rule of its own, matching only the resources that have something there; a path every
// resource reaches, or one emit writes as one path with a sibling, stays in the kind's rule.
func TestListPathsGatedWhereSomeResourceLacksTheList(t *testing.T) {
	id := func(name string) pair.Identity {
		return pair.Identity{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: name}
	}
	pod := func(containers ...any) map[string]any {
		return map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": containers}}}}
	}
	withPorts := map[string]any{"name": "a", "ports": []any{map[string]any{"containerPort": int64(80)}}}
	bare := map[string]any{"name": "b"}
	container := func(name string, rest ...any) fielddiff.Path {
		return fielddiff.Path(fieldpath.MakePathOrDie(append([]any{"spec", "template", "spec", "containers",
			&value.FieldList{{Name: "name", Value: value.NewValueInterface(name)}}}, rest...)...))
	}
	finding := func(p fielddiff.Path) classify.Finding {
		return classify.Finding{Path: p, Change: fielddiff.Added, Class: classify.Defaulted, Live: "x"}
	}
	protocol := finding(container("a", "ports", &value.FieldList{{Name: "containerPort", Value: value.NewValueInterface(int64(80))}}, "protocol"))
	for _, c := range []struct {
		name string
		rs   []classify.Resource
		want []string
	}{
		{"some lack ports", []classify.Resource{
			object(t, id("web"), "apps/v1", pod(withPorts), pod(withPorts), protocol, finding(container("a", "imagePullPolicy"))),
			object(t, id("worker"), "apps/v1", pod(bare), pod(bare), finding(container("b", "imagePullPolicy"))),
		}, []string{
			"spec.template.spec.containers[*].imagePullPolicy names=",
			"spec.template.spec.containers[*].ports[*].protocol names=empty:spec.template.spec.containers.[*].ports",
		}},
		{"all have ports", []classify.Resource{
			object(t, id("web"), "apps/v1", pod(withPorts), pod(withPorts), protocol, finding(container("a", "imagePullPolicy"))),
		}, []string{
			"spec.template.spec.containers[*].imagePullPolicy,spec.template.spec.containers[*].ports[*].protocol names=",
		}},
		{"a sibling path", []classify.Resource{
			object(t, id("web"), "apps/v1", pod(withPorts), pod(withPorts), protocol,
				finding(container("a", "ports", &value.FieldList{{Name: "containerPort", Value: value.NewValueInterface(int64(80))}}, "hostIP"))),
			object(t, id("worker"), "apps/v1", pod(bare), pod(bare), finding(container("b", "imagePullPolicy"))),
		}, []string{
			"spec.template.spec.containers[*].ports[*].hostIP,spec.template.spec.containers[*].ports[*].protocol,spec.template.spec.containers[*].imagePullPolicy names=",
		}},
	} {
		var got []string
		for _, r := range Synthesize(&classify.Report{Resources: c.rs}, Options{}).Rules {
			got = append(got, describe(r))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: rules:\n%s\nwant:\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
