package emit

import (
	"encoding/json"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// A controller's copy with sources [existing] rebases an object as [existing, new] does outside
// metadata (synth's existingOnly), as kapp's own engine rebases them; under metadata, which kapp's
// first built-in rule copies from the live object, it does not: a finalizer the manifest adds and
// the live object lacks is kept by [existing, new] only.
func TestControllerCopyFromExistingAlone(t *testing.T) {
	kappglobal.Prepare() // kapp's version, which the Config's minimumRequiredVersion is checked against
	rebased := func(path []string, sources []ctlres.FieldCopyModSource, desired, live map[string]any) string {
		var b strings.Builder
		r := synth.Rule{Classes: []classify.Class{classify.Controller}, Sources: sources, Paths: [][]string{path},
			Matchers: []synth.Matcher{{APIVersionKind: &synth.APIVersionKind{APIVersion: "apps/v1", Kind: "Deployment"}}}}
		if err := WriteRules(&b, []synth.Rule{r}, Header{Options: Options{Format: FormatConfig}}); err != nil {
			t.Fatal(err)
		}
		rs, err := ctlres.NewResourcesFromBytes([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(rs)
		if err != nil {
			t.Fatal(err)
		}
		res := func(o map[string]any) ctlres.Resource {
			md := map[string]any{"name": "d", "namespace": "ns"}
			if f, ok := o["finalizers"]; ok {
				md["finalizers"] = f
			}
			obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md}
			if s, ok := o["spec"]; ok {
				obj["spec"] = s
			}
			return ctlres.NewResourceUnstructured(unstructured.Unstructured{Object: obj}, ctlres.ResourceType{})
		}
		out, err := ctldiff.NewRebasedResource(res(live), res(desired), conf.RebaseMods()).Resource()
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(out.UnstructuredObject())
		return string(js)
	}
	both, alone := synth.ControllerWins(), []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceExisting}
	replicas := func(n int64) map[string]any { return map[string]any{"spec": map[string]any{"replicas": n}} }
	none := map[string]any{"spec": map[string]any{}}
	for i, c := range [][2]map[string]any{{replicas(3), replicas(5)}, {none, replicas(5)}, {replicas(3), none}, {none, none}} {
		if a, b := rebased([]string{"spec", "replicas"}, both, c[0], c[1]), rebased([]string{"spec", "replicas"}, alone, c[0], c[1]); a != b {
			t.Errorf("spec.replicas, case %d: [existing, new] %s\n[existing] %s", i, a, b)
		}
	}
	finalizers := map[string]any{"finalizers": []any{"example.com/keep"}}
	if a, b := rebased([]string{"metadata", "finalizers"}, both, finalizers, none), rebased([]string{"metadata", "finalizers"}, alone, finalizers, none); a == b {
		t.Errorf("metadata.finalizers: [existing] rebases as [existing, new] (%s): synth need not keep both under metadata", a)
	}
}
