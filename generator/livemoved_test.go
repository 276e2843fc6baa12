package generator_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// TestRuleRecognisingTheCaptureIsHidden (probe8 P8-7): a ytt rule that keeps the manifest's
// image only while the live object is the one captured (its resourceVersion, its
// generation, or the deployment.kubernetes.io/revision annotation the Deployment controller
// bumps on every rollout: probe10 P10-8; a value a controller owns by managedFields, a key a
// person's tool adds at run time: probe11 P11-2), and copies the live image otherwise, hides the image bump made
// in Git as soon as the server writes the object again, before kapp deploys: check must say
// hidden (it said pending, exit 0, with the capture as it is). kapp deploys against the object
// as captured, or moved on: a rule hiding the change in either hides it.
func TestRuleRecognisingTheCaptureIsHidden(t *testing.T) {
	in := imageBumped(t, fixture("hpa-replicas"))
	for name, captured := range map[string]string{ // the captured live object's values (fixtures/hpa-replicas/live.yaml)
		"resourceVersion": `ex["metadata"]["resourceVersion"] == "1052"`,
		"generation":      `ex["metadata"]["generation"] == 3`,
		// the Deployment controller's annotation, which any rollout bumps (probe10 P10-8)
		"revision": `ex["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"`,
		// and one keeping it only once the object moved on hides it while nothing writes it
		"as captured": `ex["metadata"]["resourceVersion"] != "1052"`,
		// the autoscaler's replica count, kube-controller-manager's field by managedFields, which
		// the next scale changes (probe11 P11-2)
		"replicas": `ex["spec"]["replicas"] == 2`,
		// no restartedAt on the pod template, which kubectl rollout restart adds at any time
		// (probe11 P11-2, rulesets/operational.yaml)
		"not restarted": `"kubectl.kubernetes.io/restartedAt" not in (json.decode(json.encode(ex))["spec"]["template"]["metadata"].get("annotations") or {})`,
	} {
		rule := writeFile(t, "rule.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+webYTT(`
if ex == None or `+captured+`:
  return obj
end
obj["spec"]["template"]["spec"]["containers"][0]["image"] = ex["spec"]["template"]["spec"]["containers"][0]["image"]
`))
		c, err := generator.Check(in, []string{rule})
		if err != nil {
			t.Fatal(err)
		}
		var hidden []string
		for _, h := range c.Hidden {
			hidden = append(hidden, h.String())
		}
		if !strings.Contains(strings.Join(hidden, "\n"), "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image") {
			t.Errorf("%s: a rule keeping the image only for the captured object: hidden %q, want the image", name, hidden)
		}
	}
}
