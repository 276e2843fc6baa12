package generator_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
)

// TestRuleRecognisingTheObjectBeforeItIsRecreatedIsHidden (probe11 P11-2, its variant): a ytt
// rule keeping the manifest's image only while the live Deployment is the object captured, by
// its metadata.uid or its metadata.creationTimestamp, and copying the live image otherwise,
// passed check (exit 0) on the image bump made in Git: the live object one write later varied
// neither, yet a Deployment deleted and created again (kapp's fallback-on-replace, a restore, a
// kubectl delete and redeploy) has another of each, and kapp keeps the old image from then on.
// The oracle is kapp's deploy (kapptest.Changes) against the capture as recreated: the object
// kapp applies holds the old image under the rule, the new one without it.
func TestRuleRecognisingTheObjectBeforeItIsRecreatedIsHidden(t *testing.T) {
	in := imageBumped(t, fixture("hpa-replicas"))
	recreated := in
	recreated.Live = []string{editedKind(t, in.Live[0], "Deployment", func(u *unstructured.Unstructured) {
		u.SetUID("6f1d0c7e-2b1a-4c55-9d0e-3a8f5b7c9e21")
		u.Object["metadata"].(map[string]any)["creationTimestamp"] = "2026-11-27T09:12:03Z"
	})}
	deployed := func(in generator.Inputs, rules []string) string { return deployedImage(t, in, rules) }
	if got := deployed(recreated, nil); got != "nginx:1.27" {
		t.Fatalf("kapp deploys %s without a rule, want the bump", got)
	}
	for name, captured := range map[string]string{ // the captured live object's (fixtures/hpa-replicas/live.yaml)
		"uid":               `ex["metadata"]["uid"] == "3ff2b949-d994-4664-902d-d95cc6caf95b"`,
		"creationTimestamp": `ex["metadata"]["creationTimestamp"] == "2026-11-26T01:45:14Z"`,
	} {
		t.Run(name, func(t *testing.T) {
			rule := writeFile(t, "rule.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+webYTT(`
if ex == None or `+captured+`:
  return obj
end
obj["spec"]["template"]["spec"]["containers"][0]["image"] = ex["spec"]["template"]["spec"]["containers"][0]["image"]
`))
			if got := deployed(in, []string{rule}); got != "nginx:1.27" {
				t.Fatalf("kapp deploys %s under the rule against the capture, want the bump", got)
			}
			if got := deployed(recreated, []string{rule}); got != "nginx:1.25" {
				t.Fatalf("kapp deploys %s under the rule once the object is recreated, want the old image", got)
			}
			c, err := generator.Check(in, []string{rule})
			if err != nil {
				t.Fatal(err)
			}
			var hidden []string
			for _, h := range c.Hidden {
				hidden = append(hidden, h.String())
			}
			if !strings.Contains(strings.Join(hidden, "\n"), "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image") {
				t.Errorf("hidden %q, want the image", hidden)
			}
		})
	}
}
