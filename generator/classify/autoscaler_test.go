package classify

import (
	"strings"
	"testing"
)

// The HorizontalPodAutoscaler's scale is known by its write (an Update of the scale subresource)
// from the managers rulesets name, not by one literal name: a kube-controller-manager binary
// named after its version, or k3s, which embeds it, record other names, and the scale a removed
// HPA left stayed a controller's, ruled for ever (newcomer3 finding 5). Another manager scaling
// through the subresource is a controller of its own.
func TestScaleOfARemovedAutoscalerByManagerName(t *testing.T) {
	const desired = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n"
	const kapp = `- {manager: kapp, operation: Update, apiVersion: apps/v1, time: "2026-11-22T04:41:10Z", fieldsType: FieldsV1, fieldsV1: {f:metadata: {f:annotations: {.: {}, f:kapp.k14s.io/identity: {}}}, f:spec: {f:selector: {}, f:template: {f:metadata: {f:labels: {.: {}, f:app: {}}}, f:spec: {f:containers: {'k:{"name":"web"}': {.: {}, f:image: {}, f:name: {}}}}}}}}`
	for _, tc := range []struct{ manager, want string }{
		{"kube-controller-manager", "drift"},
		{"kube-controller-manager-v1.37.2", "drift"},
		{"k3s", "drift"},
		{"post-deploy-job", "controller:post-deploy-job"},
	} {
		entry := `- {manager: ` + tc.manager + `, operation: Update, subresource: scale, apiVersion: apps/v1, time: "2026-11-22T04:41:11Z", fieldsType: FieldsV1, fieldsV1: {f:spec: {f:replicas: {}}}}`
		live := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ns\n  annotations: {kapp.k14s.io/identity: x}\n  managedFields:\n" + indent(kapp) + indent(entry) +
			strings.TrimPrefix(desired, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\n")
		live = strings.Replace(live, "replicas: 1", "replicas: 3", 1)
		f, ok := classifyYAML(t, desired, live)["spec.replicas"]
		if !ok || f.Label() != tc.want {
			t.Errorf("%s: spec.replicas %s: %s; want %s", tc.manager, f.Label(), f.Evidence, tc.want)
		}
	}
}
