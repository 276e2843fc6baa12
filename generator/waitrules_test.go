package generator_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	ctlresm "carvel.dev/kapp/pkg/kapp/resourcesmisc"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A package Config's wait rule kapp fails to wait with whatever the cluster holds passed check
// (exit 0, the image bump a pending change) while every kapp v0.66.0 deploy of the Deployment
// failed: starlark that does not compile ("Error: Applying ytt wait rule"), a ytt without
// funcContractV1 (kapp dereferences nil and panics) (probe20 P20-2, issue 23). The oracle is
// kapp's own wait: resourcesmisc.NewCustomWaitingResource, which clusterapply tries first on every
// resource it waits on, with the Config's wait rules, evaluated on each live object. A resource
// annotated kapp.k14s.io/disable-wait is never waited on (clusterapply ClusterChange.WaitOp, read
// by hand).
func TestWaitRuleKappFailsOnFailsTheGate(t *testing.T) {
	const bad = `  ytt:
    funcContractV1:
      resource.star: |
        def is_done(resource):
            return {"done": True, "successful": undefined_name}
        end
`
	const good = `  ytt:
    funcContractV1:
      resource.star: |
        def is_done(resource):
            return {"done": True, "successful": True, "message": resource["metadata"]["name"]}
        end
`
	const deployments = "- resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n"
	for _, c := range []struct {
		name        string
		rules       string // the Config's waitRules
		line        int    // of the wait rule failing, in the Config's file
		disableWait bool
	}{
		{"undefined name", deployments + bad, 4, false},
		{"ytt without funcContractV1", deployments + "  ytt: {}\n", 4, false},
		{"loads", deployments + good, 0, false},
		{"an earlier rule matches first", deployments + good + deployments + bad, 0, false},
		{"matches no resource", "- resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: batch/v1, kind: Job}\n" + bad, 0, false},
		{"second rule, HPA", "- resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: batch/v1, kind: Job}\n" + good +
			"- resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}\n" + bad, 12, false},
		{"wait disabled", deployments + bad, 0, true},
		{"empty matcher", "- resourceMatchers:\n  - {}\n  conditionMatchers: []\n", 4, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			config := "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nwaitRules:\n" + c.rules
			in := imageBumped(t, fixture("hpa-replicas"))
			if c.disableWait {
				in.Desired[0] = editedKind(t, in.Desired[0], "Deployment", func(u *unstructured.Unstructured) {
					u.SetAnnotations(map[string]string{"kapp.k14s.io/disable-wait": ""})
				})
			}
			configFile := writeFile(t, "config.yml", config)
			in.Desired = append(in.Desired, configFile)

			// kapp's wait on each live object the deploy creates, updates or keeps
			waits := kappWaitRules(t, configFile)
			var want []string
			for _, live := range objects(t, "../fixtures/hpa-replicas/live.yaml", "") {
				if c.disableWait && live.GetKind() == "Deployment" {
					continue
				}
				if kappWaitFails(ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{}), waits) {
					want = append(want, live.GetKind())
				}
			}

			if (len(want) > 0) != (c.line > 0) {
				t.Fatalf("kapp's wait fails on %v: the case says line %d", want, c.line)
			}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got, evidence []string
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Kind != verdict.KindDeployFails {
					continue
				}
				got, evidence = append(got, f.Resource.Kind), append(evidence, f.Evidence)
				where := fmt.Sprintf("%s:%d, document 1, waitRules[", configFile, c.line)
				if !f.Fails || !strings.Contains(f.Evidence, where) || f.File == "" {
					t.Errorf("want a failing finding located in the manifest naming the rule (%s), got (fails %v, %s:%d) %s %s", where, f.Fails, f.File, f.Line, f.Resource, f.Evidence)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("kapp's wait fails on %v, check's findings name %v", want, got)
			}

			// generate says what check says, as it says a change graph kapp's deploy fails on
			g, err := generator.Generate(in, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var generated []string
			for _, f := range g.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindDeployFails {
					generated = append(generated, f.Evidence)
				}
			}
			if !slices.Equal(generated, evidence) {
				t.Fatalf("check says %q, generate says %q", evidence, generated)
			}
		})
	}
}

// kappWaitFails is kapp v0.66.0's wait on res with rules failing whatever the cluster holds: it
// panics, or the ytt wait rule fails to evaluate.
func kappWaitFails(res ctlres.Resource, rules []ctlconf.WaitRule) (fails bool) {
	defer func() {
		if recover() != nil {
			fails = true
		}
	}()
	w := ctlresm.NewCustomWaitingResource(res, rules)
	if w == nil {
		return false
	}
	st := w.IsDoneApplying()
	return st.Done && !st.Successful && strings.HasPrefix(st.Message, "Error: Applying ytt wait rule")
}

// A wait rule on conditions the object's controller never writes passed check while kapp v0.66.0
// waited on the Deployment until its --wait-timeout and failed every deploy changing or keeping it
// (probe20 P20-2 wait-never.yml, issue 23). kapp's wait (resourcesmisc.NewCustomWaitingResource)
// is the oracle: on the live object as captured, reconciled by its controller (status.observedGeneration
// 3 = metadata.generation 3: read by hand in the fixture, which holds Available and Progressing), it
// is not done, so the deploy fails where the controller writes no other conditions; a rule with no
// success matcher is not successful even on an object holding every condition it names. A live
// object whose status does not show the generation reconciled is weaker evidence: a warning.
func TestWaitRuleOnConditionsNeverWritten(t *testing.T) {
	const deployments = "- resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n  conditionMatchers:\n"
	unobserved := func(u *unstructured.Unstructured) {
		unstructured.RemoveNestedField(u.Object, "status", "observedGeneration")
	}
	for _, c := range []struct {
		name       string
		conditions string // the Deployment rule's conditionMatchers
		editLive   func(*unstructured.Unstructured)
		finding    bool // a deploy-fails finding on the Deployment
		weak       bool // a warning
		whatever   bool // kapp succeeds on no object: the oracle gives it every condition the rule names
		evidence   string
	}{
		{"Ready never written", `  - {type: Ready, status: "True", success: true}` + "\n", nil, true, false, false,
			"ends its wait only on a condition of type Ready, and the live object's status holds conditions of type Available, Progressing only"},
		{"Available written", `  - {type: Available, status: "True", success: true}` + "\n", nil, false, false, false, ""},
		{"failure written, success never", `  - {type: Ready, status: "True", success: true}` + "\n" + `  - {type: ReplicaFailure, status: "True", failure: true}` + "\n" +
			`  - {type: Progressing, status: "False", failure: true}` + "\n", nil, false, false, false, ""},
		{"no success matcher", `  - {type: Ready, status: "False", failure: true}` + "\n" + `  - {type: Ready, status: "True", unblockChanges: true}` + "\n", nil, true, false, true,
			"has no conditionMatchers entry with success: true"},
		{"generation not shown reconciled", `  - {type: Ready, status: "True", success: true}` + "\n", unobserved, true, true, false,
			"that rests on a status without status.observedGeneration 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			config := "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nwaitRules:\n" + deployments + c.conditions
			in := imageBumped(t, fixture("hpa-replicas"))
			if c.editLive != nil {
				in.Live[0] = editedKind(t, in.Live[0], "Deployment", c.editLive)
			}
			configFile := writeFile(t, "config.yml", config)
			in.Desired = append(in.Desired, configFile)

			waits := kappWaitRules(t, configFile)
			for _, live := range objects(t, in.Live[0], "") {
				if live.GetKind() != "Deployment" {
					continue
				}
				if c.whatever {
					var all []any
					for _, m := range waits[0].ConditionMatchers {
						all = append(all, map[string]any{"type": m.Type, "status": m.Status})
					}
					if err := unstructured.SetNestedSlice(live.Object, all, "status", "conditions"); err != nil {
						t.Fatal(err)
					}
				}
				st := ctlresm.NewCustomWaitingResource(ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{}), waits).IsDoneApplying()
				if c.finding && st.Done && st.Successful {
					t.Fatalf("kapp's wait succeeds on the live Deployment: %s", st.Message)
				}
				if !c.whatever && c.finding && st.Done {
					t.Fatalf("kapp's wait ends on the live Deployment: %s", st.Message)
				}
			}

			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			g, err := generator.Generate(in, synth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var checked, generated []string
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Kind != verdict.KindDeployFails {
					continue
				}
				checked = append(checked, f.Evidence)
				where := fmt.Sprintf("%s:4, document 1, waitRules[0], the first wait rule matching it", configFile)
				if f.Resource.Kind != "Deployment" || f.Fails == c.weak || !strings.Contains(f.Evidence, where) || !strings.Contains(f.Evidence, c.evidence) {
					t.Errorf("want a finding on the Deployment (fails %v) naming %s and saying %q, got (fails %v) %s %s", !c.weak, where, c.evidence, f.Fails, f.Resource, f.Evidence)
				}
			}
			if (len(checked) > 0) != c.finding || len(checked) > 1 {
				t.Fatalf("want a finding: %v, got %q", c.finding, checked)
			}
			for _, f := range g.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindDeployFails {
					generated = append(generated, f.Evidence)
				}
			}
			if !slices.Equal(generated, checked) {
				t.Fatalf("check says %q, generate says %q", checked, generated)
			}
		})
	}
}

// kappWaitRules are the wait rules of the Config in file, as kapp v0.66.0 reads them.
func kappWaitRules(t *testing.T, file string) []ctlconf.WaitRule {
	t.Helper()
	cfg := objects(t, file, "")
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults([]ctlres.Resource{ctlres.NewResourceUnstructured(*cfg[0], ctlres.ResourceType{})})
	if err != nil {
		t.Fatal(err)
	}
	return conf.WaitRules()
}
