package emit

import (
	"encoding/json"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// A copy through list items behind an emptyFieldMatcher of the leaf's grandparent (synth's gated
// rules) rebases every object exactly as the same copy without it, as kapp's own engine rebases
// them: where the manifest has no ports the copy writes nothing.
func TestGatedCopyRebasesAsTheUngated(t *testing.T) {
	key := func(k string, v any) *value.FieldList {
		return &value.FieldList{{Name: k, Value: value.NewValueInterface(v)}}
	}
	path := fielddiff.Path(fieldpath.MakePathOrDie("spec", "containers", key("name", "a"), "ports", key("containerPort", int64(80)), "protocol"))
	kind := synth.Matcher{APIVersionKind: &synth.APIVersionKind{APIVersion: "v1", Kind: "Pod"}}
	gate := synth.Matcher{And: &synth.Matchers{Matchers: []synth.Matcher{kind, {Not: &synth.Not{Matcher: synth.Matcher{
		EmptyField: &synth.EmptyField{Path: []synth.PathPart{{Key: "spec"}, {Key: "containers"}, {AllIndexes: true}, {Key: "ports"}}}}}}}}}
	mods := func(m synth.Matcher) []ctlres.ResourceModWithMultiple {
		var b strings.Builder
		r := synth.Rule{Classes: []classify.Class{classify.Defaulted}, Sources: synth.UserWins(), Indexed: []fielddiff.Path{path}, Matchers: []synth.Matcher{m}}
		if err := WriteRules(&b, []synth.Rule{r}, Header{Options: Options{Format: FormatConfig}}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "emptyFieldMatcher") == (m.And != nil) {
			t.Fatalf("the gate is not written:\n%s", b.String())
		}
		rs, err := ctlres.NewResourcesFromBytes([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(rs)
		if err != nil {
			t.Fatal(err)
		}
		return conf.RebaseMods()
	}
	kappglobal.Prepare() // kapp's version, which the Config's minimumRequiredVersion is checked against
	plain, gated := mods(kind), mods(gate)
	pod := func(containers ...any) ctlres.Resource {
		return ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "p", "namespace": "ns"}, "spec": map[string]any{"containers": containers}}}, ctlres.ResourceType{})
	}
	c := func(name string, ports ...any) map[string]any {
		return map[string]any{"name": name, "ports": ports}
	}
	port := func(n int64, protocol ...string) any {
		p := map[string]any{"containerPort": n}
		for _, s := range protocol {
			p["protocol"] = s
		}
		return p
	}
	live := pod(c("a", port(80, "TCP")), c("b", port(81, "TCP")))
	copied := 0
	for i, desired := range []ctlres.Resource{
		pod(c("a", port(80)), c("b", port(81))),
		pod(c("a", port(80, "UDP"))),
		pod(map[string]any{"name": "a"}, map[string]any{"name": "b"}),
		pod(c("a"), c("b")),
		pod(map[string]any{"name": "a", "ports": nil}),
		pod(map[string]any{"name": "a"}, c("b", port(81))),
		pod(),
	} {
		var out [2]string
		for j, ms := range [][]ctlres.ResourceModWithMultiple{plain, gated} {
			res, err := ctldiff.NewRebasedResource(live, desired, ms).Resource()
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(res.UnstructuredObject()["spec"])
			out[j] = string(js)
		}
		if out[0] != out[1] {
			t.Errorf("case %d: without the gate %s\nwith it %s", i, out[0], out[1])
		}
		if strings.Count(out[0], "TCP") > 0 {
			copied++
		}
	}
	if copied != 2 {
		t.Errorf("the copy wrote the live protocol in %d cases, want 2 (the cases are not what they say)", copied)
	}
}
