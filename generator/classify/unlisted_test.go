package classify

import (
	"testing"
)

// A manager no ruleset names that rewrote a value the manifest declares was a controller, so a
// person's edit through Argo CD's UI, a Python or Go script, curl, Terraform or Pulumi became a
// rule, and a later change of that field in Git passed check (newcomer3 finding 1). The people's
// tools the rulesets list are drift; any other manager is unknown (the gate fails) unless a
// ruleset names it a controller; what it adds beside the manifest, or writes through a
// subresource, stays a controller's.
func TestManagerNoRulesetNamesIsNoControllerOfADeclaredValue(t *testing.T) {
	const desired = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\ndata: {LOG_LEVEL: info, a: x, c: z}\n"
	const kapp = `- {manager: kapp, operation: Update, apiVersion: v1, time: "2026-11-22T04:41:10Z", fieldsType: FieldsV1, fieldsV1: {f:data: {.: {}, f:LOG_LEVEL: {}, f:a: {}, f:c: {}}, f:metadata: {f:annotations: {.: {}, f:kapp.k14s.io/identity: {}}}}}`
	for _, tc := range []struct{ manager, fields, field, want string }{
		{"argocd-server", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "drift"},
		{"OpenAPI-Generator", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "drift"},
		{"Go-http-client", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "drift"},
		{"python-requests", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "drift"},
		{"curl", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "drift"},
		{"Terraform", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "drift"},
		{"pulumi-kubernetes-a1b2c3d4", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "drift"},
		{"main", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "unknown"},
		{"ancient-changes", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "unknown"},
		{"kube-controller-manager", `{f:data: {f:LOG_LEVEL: {}}}`, "data.LOG_LEVEL", "controller:kube-controller-manager"},
		{"main", `{f:data: {f:EXTRA: {}}}`, "data.EXTRA", "controller:main"},
	} {
		entry := `- {manager: ` + tc.manager + `, operation: Update, apiVersion: v1, time: "2026-11-22T04:41:11Z", fieldsType: FieldsV1, fieldsV1: ` + tc.fields + `}`
		data := "data: {LOG_LEVEL: debug, a: x, c: z}\n"
		if tc.field == "data.EXTRA" {
			data = "data: {LOG_LEVEL: info, a: x, c: z, EXTRA: x}\n"
		}
		live := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ns\n  annotations: {kapp.k14s.io/identity: x}\n  managedFields:\n" + indent(kapp) + indent(entry) + data
		f, ok := classifyYAML(t, desired, live)[tc.field]
		if !ok || f.Label() != tc.want {
			t.Errorf("%s: %s %s: %s; want %s", tc.manager, tc.field, f.Label(), f.Evidence, tc.want)
		}
		if tc.want == "unknown" && f.Warning == "" {
			t.Errorf("%s: unknown without a warning saying how to name the manager", tc.manager)
		}
	}
}
