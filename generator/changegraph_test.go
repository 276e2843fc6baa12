package generator_test

import (
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldgraph "carvel.dev/kapp/pkg/kapp/diffgraph"
	ctllog "carvel.dev/kapp/pkg/kapp/logger"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// upsert is a change of the deploy as kapp's change graph takes it, for the oracle.
type upsert struct{ res ctlres.Resource }

func (u upsert) Resource() ctlres.Resource    { return u.res }
func (u upsert) Op() ctldgraph.ActualChangeOp { return ctldgraph.ActualChangeOpUpsert }

// Change groups and rules forming a cycle among the resources a deploy changes, or kapp annotations
// kapp's deploy refuses, passed check as "pending change from Git (kapp applies it on deploy)",
// exit 0, while kapp v0.66.0's deploy failed ("Detected cycle while ordering changes", "Unknown
// change rule", "to be a qualified name", "Unknown update strategy") and applied nothing (probe11
// P11-4). The oracle for the change graph is kapp's own (diffgraph.NewChangeGraph over the edited
// manifest's objects, every one of which this deploy updates, with kapp's default bindings); for
// the update strategy, the values clusterapply/add_or_update_change.go knows.
func TestDeployFailsIsKappsChangeGraph(t *testing.T) {
	for _, c := range []struct {
		name          string
		deploy, hpa   map[string]string
		strategyFails bool
	}{
		{"cycle", map[string]string{"kapp.k14s.io/change-group": "g/a", "kapp.k14s.io/change-rule": "upsert after upserting g/b"},
			map[string]string{"kapp.k14s.io/change-group": "g/b", "kapp.k14s.io/change-rule": "upsert after upserting g/a"}, false},
		{"ordered", map[string]string{"kapp.k14s.io/change-group": "g/a", "kapp.k14s.io/change-rule": "upsert after upserting g/b"},
			map[string]string{"kapp.k14s.io/change-group": "g/b"}, false},
		{"misspelt rule", map[string]string{"kapp.k14s.io/change-rule": "upsert afterr upserting g/b"}, nil, false},
		{"bad group name", map[string]string{"kapp.k14s.io/change-group": "bad group name!"}, nil, false},
		{"unknown update strategy", map[string]string{"kapp.k14s.io/update-strategy": "fallback-on-replase"}, nil, true},
		{"known update strategy", map[string]string{"kapp.k14s.io/update-strategy": "fallback-on-replace"}, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture("hpa-replicas")
			in.Desired = []string{editedFixture(t, in.Desired[0], func(u *unstructured.Unstructured) bool {
				ann := c.deploy
				if u.GetKind() == "HorizontalPodAutoscaler" {
					ann = c.hpa
				}
				if ann != nil {
					u.SetAnnotations(ann)
				}
				if u.GetKind() == "Deployment" { // the pull request's image bump
					cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
					cs[0].(map[string]any)["image"] = "nginx:1.27"
					_ = unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers")
				}
				return true
			})}
			var changes []ctldgraph.ActualChange
			for _, o := range objects(t, in.Desired[0], in.Namespace) {
				changes = append(changes, upsert{ctlres.NewResourceUnstructured(*o, ctlres.ResourceType{})})
			}
			_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(nil)
			if err != nil {
				t.Fatal(err)
			}
			_, kerr := ctldgraph.NewChangeGraph(changes, conf.ChangeGroupBindings(), conf.ChangeRuleBindings(), ctllog.NewNoopLogger())
			want := kerr != nil || c.strategyFails

			got := deployFails(t, in, nil)
			if (len(got) > 0) != want {
				t.Fatalf("kapp's deploy fails: %v (%v), check's findings: %v", want, kerr, got)
			}
			for _, f := range got {
				if !f.Fails || f.File == "" || kerr != nil && !strings.Contains(f.Evidence, kerr.Error()) || f.Resource.Name != "web" {
					t.Errorf("want a failing finding located in the manifest naming the resource and kapp's reason %v, got (fails %v, %s:%d) %s %s", kerr, f.Fails, f.File, f.Line, f.Resource, f.Evidence)
				}
			}
		})
	}
}

// deployFails are check's findings of in with ruleFiles that kapp's deploy fails.
func deployFails(t *testing.T, in generator.Inputs, ruleFiles []string) []verdict.Finding {
	t.Helper()
	ch, err := generator.Check(in, ruleFiles)
	if err != nil {
		t.Fatal(err)
	}
	var out []verdict.Finding
	for _, f := range ch.Findings(verdict.Gate{}) {
		if f.Kind == verdict.KindDeployFails {
			out = append(out, f)
		}
	}
	return out
}
