package generator_test

import (
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A change made in Git to a custom resource that its CRD's validation refuses on update: check
// said "pending change from Git (kapp applies it on deploy)", exit 0, while the API server refuses
// kapp's update (probe16 P16-4: a transition rule `self == oldSelf` on spec.storage.bucket; kapp
// v0.66.0 on a kube-apiserver v1.37.2 answered `Invalid value: "backups-eu": bucket is
// immutable`, findings/probe16/P16-4/kapp-run.txt). The oracle is the CRD's own rules written
// here and what the server does with them: a transition rule compares the new value with the live
// one, a rule without oldSelf and the schema's enum and maxLength judge the new value, and a
// value the live object already holds passes (validation ratcheting, on by default since 1.30).
func TestCustomResourceUpdateItsCRDRefusesFailsTheGate(t *testing.T) {
	const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: vaults.crdupdate.rebasegen.dev}
spec:
  group: crdupdate.rebasegen.dev
  scope: Namespaced
  names: {kind: Vault, plural: vaults, singular: vault, listKind: VaultList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              bucket:
                type: string
                x-kubernetes-validations: [{rule: self == oldSelf, message: bucket is immutable}]
              tier: {type: string, enum: [standard, archive]}
              prefix: {type: string, maxLength: 8}
              schedule:
                type: string
                x-kubernetes-validations: [{rule: "self.matches('^[0-9 *]+$')", message: schedule is not cron}]
              note: {type: string}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	const vault = `apiVersion: crdupdate.rebasegen.dev/v1
kind: Vault
metadata: {name: nightly, namespace: vaults}
spec: {bucket: %s, tier: %s, prefix: %s, schedule: '%s', note: %s}
`
	live := []string{"backups", "standard", "nightly", "0 2 * * *", "a"}
	with := func(i int, v string) []string {
		out := append([]string(nil), live...)
		out[i] = v
		return out
	}
	for _, tc := range []struct {
		name          string
		live, desired []string
		refusal       string // in the evidence; "" where the server accepts the update
	}{
		{name: "transition rule (P16-4)", live: live, desired: with(0, "backups-eu"), refusal: "spec.bucket: Invalid value: bucket is immutable"},
		{name: "rule without oldSelf", live: live, desired: with(3, "nightly"), refusal: "spec.schedule: Invalid value: schedule is not cron"},
		{name: "enum", live: live, desired: with(1, "cold"), refusal: "spec.tier: Unsupported value"},
		{name: "maxLength", live: live, desired: with(2, "nightly-eu-1"), refusal: "spec.prefix: Too long"},
		{name: "valid change", live: live, desired: with(1, "archive")},
		{name: "free field beside an immutable one", live: live, desired: with(4, "b")},
		{name: "a value the live object already breaks, kept", live: with(2, "nightly-eu-1"), desired: append(with(2, "nightly-eu-1")[:4], "b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{
				Desired: []string{writeFile(t, "desired.yaml", fill(vault, tc.desired...))},
				Live:    []string{writeFile(t, "live.yaml", kappApplied(t, fill(vault, tc.live...), func(map[string]any) {}))},
				CRDs:    []string{writeFile(t, "crds.yaml", crd)}, Namespace: "vaults",
			}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindResidual {
					continue
				}
				found = true
				if tc.refusal == "" {
					if f.Fails || f.Kind != verdict.KindPending {
						t.Errorf("check: want a pending change, got %s %s (fails %v): %s", f.Kind, f.Path, f.Fails, f.Evidence)
					}
					continue
				}
				if f.Kind != verdict.KindImmutable || !f.Fails || !strings.Contains(f.Evidence, tc.refusal) || !strings.Contains(f.Evidence, "CRD vaults.crdupdate.rebasegen.dev") {
					t.Errorf("check: want refused (%s), got %s %s (fails %v): %s", tc.refusal, f.Kind, f.Path, f.Fails, f.Evidence)
				}
			}
			if !found {
				t.Error("check: no finding")
			}
		})
	}
}
