package classify

import (
	"strings"
	"testing"
)

// kubectl records the manager "kubectl" both for apply --server-side (operation Apply) and for
// the commands that set no fieldManager, kubectl scale among them (operation Update, subresource
// scale): a replica count set with kubectl scale was drift "by kubectl apply --server-side by
// hand" (newcomer24 finding 12). The evidence names the tool of the write.
func TestHumanEvidenceNamesTheWrite(t *testing.T) {
	const desired = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n"
	const kapp = `- {manager: kapp, operation: Update, apiVersion: apps/v1, time: "2026-11-22T04:41:10Z", fieldsType: FieldsV1, fieldsV1: {f:metadata: {f:annotations: {.: {}, f:kapp.k14s.io/identity: {}}}, f:spec: {f:selector: {}, f:template: {f:metadata: {f:labels: {.: {}, f:app: {}}}, f:spec: {f:containers: {'k:{"name":"web"}': {.: {}, f:image: {}, f:name: {}}}}}}}}`
	for _, tc := range []struct{ operation, subresource, want string }{
		{"Update", "scale", "a tool people use by hand: kubectl scale, "},
		{"Apply", "", "a tool people use by hand: kubectl apply --server-side by hand"},
		{"Update", "", "a tool people use by hand: a kubectl command that sets no fieldManager"},
	} {
		entry := `- {manager: kubectl, operation: ` + tc.operation + `, apiVersion: apps/v1, time: "2026-11-22T04:41:11Z", fieldsType: FieldsV1, fieldsV1: {f:spec: {f:replicas: {}}}`
		if tc.subresource != "" {
			entry += ", subresource: " + tc.subresource
		}
		entry += "}"
		live := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ns\n  annotations: {kapp.k14s.io/identity: x}\n  managedFields:\n" + indent(kapp) + indent(entry) +
			strings.TrimPrefix(desired, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\n")
		live = strings.Replace(live, "replicas: 1", "replicas: 3", 1)
		f, ok := classifyYAML(t, desired, live)["spec.replicas"]
		if !ok || f.Class != Drift || f.Owner != "kubectl" || !strings.Contains(f.Evidence, tc.want) {
			t.Errorf("%s %s: spec.replicas %s (owner %s): %s; want drift by kubectl, evidence with %q", tc.operation, tc.subresource, f.Class, f.Owner, f.Evidence, tc.want)
		}
	}
}
