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
		{"condition never written", deployments + "  conditionMatchers:\n  - {type: Ready, status: \"True\", success: true}\n", 0, false},
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
			cfg := objects(t, configFile, "")
			_, conf, err := ctlconf.NewConfFromResourcesWithDefaults([]ctlres.Resource{ctlres.NewResourceUnstructured(*cfg[0], ctlres.ResourceType{})})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, live := range objects(t, "../fixtures/hpa-replicas/live.yaml", "") {
				if c.disableWait && live.GetKind() == "Deployment" {
					continue
				}
				if kappWaitFails(ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{}), conf.WaitRules()) {
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
