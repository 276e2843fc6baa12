package generator_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// crdVersion is one spec.versions item of the test's Vault CRD; immutable puts the transition
// rule `self == oldSelf` on spec.bucket.
func crdVersion(name string, served, storage, immutable bool) string {
	rule := ""
	if immutable {
		rule = ", x-kubernetes-validations: [{rule: self == oldSelf, message: bucket is immutable}]"
	}
	return fmt.Sprintf("{name: %s, served: %t, storage: %t, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {bucket: {type: string%s}, note: {type: string}}}}}}}",
		name, served, storage, rule)
}

// vaultCRD is the test's CRD with versions.
func vaultCRD(versions ...string) string {
	return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: vaults.crdapplied.rebasegen.dev}\n" +
		"spec: {group: crdapplied.rebasegen.dev, scope: Namespaced, names: {kind: Vault, plural: vaults, singular: vault, listKind: VaultList}, versions: [" + strings.Join(versions, ", ") + "]}\n"
}

// liveCRD is manifest as kapp applied it, with the status the server records: its stored versions.
func liveCRD(t *testing.T, manifest string, stored ...string) string {
	return kappApplied(t, manifest, func(o map[string]any) {
		o["status"] = map[string]any{"storedVersions": stored,
			"acceptedNames": map[string]any{"kind": "Vault", "plural": "vaults", "singular": "vault", "listKind": "VaultList"}}
	})
}

// A pull request that changes a CRD and a custom resource of it together is judged with the CRD
// the manifests declare: kapp's deploy applies CRDs before custom resources (its default Config's
// change groups), so the API server judges the custom resource's update with the new CRD (probe17
// P17-2, measured with kapp v0.66.0 on kube-apiserver v1.37.2: a transition rule added beside a
// change of the field it guards is refused, "Invalid value: \"backups-eu\": bucket is immutable";
// an object left on a version the CRD stops serving fails "the server could not find the
// requested resource (reason: NotFound)", or, with nothing to change in it, the next deploy fails
// "Expected to find type for resource"; an object moved to the new version deploys). check judged
// with the live CRD: exit 0 on both failures.
func TestCustomResourceJudgedWithTheCRDKappAppliesFirst(t *testing.T) {
	const vault = `apiVersion: crdapplied.rebasegen.dev/%s
kind: Vault
metadata: {name: nightly, namespace: vaults}
spec: {bucket: %s, note: a}
`
	v1 := vaultCRD(crdVersion("v1", true, true, false))
	for _, tc := range []struct {
		name              string
		live, crd         string // the CRD kapp last applied, the manifests' CRD
		version, bucket   string
		want              verdict.Kind // the Backup's finding that fails the gate; "" for none
		evidence, noKinds string
	}{
		{name: "transition rule added with the change it forbids", live: v1, crd: vaultCRD(crdVersion("v1", true, true, true)),
			version: "v1", bucket: "backups-eu", want: verdict.KindImmutable, evidence: "spec.bucket: Invalid value: bucket is immutable"},
		{name: "version no longer served, object on it changed", live: v1, crd: vaultCRD(crdVersion("v1", false, false, false), crdVersion("v2", true, true, false)),
			version: "v1", bucket: "backups-eu", want: verdict.KindUnserved, evidence: "does not serve Vault at crdapplied.rebasegen.dev/v1, only at crdapplied.rebasegen.dev/v2"},
		{name: "version no longer served, object on it unchanged", live: v1, crd: vaultCRD(crdVersion("v1", false, false, false), crdVersion("v2", true, true, false)),
			version: "v1", bucket: "backups", want: verdict.KindUnserved, evidence: "the next deploy fails on it"},
		// controls: the same verdicts as with the live CRD
		{name: "CRD unchanged", live: v1, crd: vaultCRD(crdVersion("v1", true, true, false)), version: "v1", bucket: "backups-eu"},
		{name: "rule removed with the change it forbade", live: vaultCRD(crdVersion("v1", true, true, true)), crd: vaultCRD(crdVersion("v1", true, true, false)),
			version: "v1", bucket: "backups-eu"},
		{name: "object moved to the version still served", live: v1, crd: vaultCRD(crdVersion("v1", false, false, false), crdVersion("v2", true, true, false)),
			version: "v2", bucket: "backups-eu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			liveCR := kappApplied(t, fill(vault, "v1", "backups"), func(map[string]any) {})
			in := generator.Inputs{
				Desired:   []string{writeFile(t, "desired.yaml", tc.crd+"---\n"+fill(vault, tc.version, tc.bucket))},
				Live:      []string{writeFile(t, "live.yaml", liveCRD(t, tc.live, "v1")+"---\n"+liveCR)},
				Namespace: "vaults",
			}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			var failing []string
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind != "Vault" || !f.Fails || f.Kind == verdict.KindResidual {
					continue
				}
				failing = append(failing, string(f.Kind))
				if f.Kind != tc.want || !strings.Contains(f.Evidence, tc.evidence) || !strings.Contains(f.Evidence, "vaults.crdapplied.rebasegen.dev as the manifests declare it") {
					t.Errorf("check: want %q (%s), got %s %s: %s", tc.want, tc.evidence, f.Kind, f.Path, f.Evidence)
				}
			}
			if tc.want != "" && !slices.Contains(failing, string(tc.want)) {
				t.Errorf("check: want a failing %s finding on the Vault, got %v", tc.want, failing)
			}
		})
	}
}

// A CRD update that drops a version status.storedVersions lists is refused by the API server,
// which fails kapp's deploy at the CRD (measured with kapp v0.66.0 on kube-apiserver v1.37.2:
// `status.storedVersions[0]: Invalid value: "v1alpha1": missing from spec.versions; v1alpha1 was
// previously a storage version...`): check exited 0 with the custom resource at the live
// version, on a pending change. Dropping a version that was never stored, or keeping the stored
// one unserved, is accepted (both measured: kapp's deploy succeeds).
func TestCRDUpdateDroppingAStoredVersionFailsTheGate(t *testing.T) {
	const vault = "apiVersion: crdapplied.rebasegen.dev/%s\nkind: Vault\nmetadata: {name: nightly, namespace: vaults}\nspec: {bucket: backups, note: a}\n"
	for _, tc := range []struct {
		name       string
		live, crd  string
		stored, cr string // the live CRD's stored version, the manifest's Vault version
		refused    bool
	}{
		{name: "stored version dropped", live: vaultCRD(crdVersion("v1", true, true, false)), crd: vaultCRD(crdVersion("v2", true, true, false)), stored: "v1", cr: "v2", refused: true},
		{name: "stored version kept, unserved", live: vaultCRD(crdVersion("v1", true, true, false)), crd: vaultCRD(crdVersion("v1", false, false, false), crdVersion("v2", true, true, false)), stored: "v1", cr: "v2"},
		{name: "version never stored dropped", live: vaultCRD(crdVersion("v1", true, true, false), crdVersion("v2", true, false, false)), crd: vaultCRD(crdVersion("v1", true, true, false)), stored: "v1", cr: "v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{
				Desired:   []string{writeFile(t, "desired.yaml", tc.crd+"---\n"+fill(vault, tc.cr))},
				Live:      []string{writeFile(t, "live.yaml", liveCRD(t, tc.live, tc.stored)+"---\n"+kappApplied(t, fill(vault, tc.stored), func(map[string]any) {}))},
				Namespace: "vaults",
				CRDUpdate: apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate,
			}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			refused := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind != "CustomResourceDefinition" || f.Kind == verdict.KindResidual {
					continue
				}
				if f.Kind == verdict.KindImmutable && f.Fails && strings.Contains(f.Evidence, "status.storedVersions[0]: Invalid value: missing from spec.versions; v1 was previously a storage version") &&
					strings.Contains(f.Evidence, "never have kapp replace a CRD") {
					refused = true
				} else if f.Fails {
					t.Errorf("check: unexpected failing %s %s: %s", f.Kind, f.Path, f.Evidence)
				}
			}
			if refused != tc.refused {
				t.Errorf("check: the CRD's update refused: %v, want %v", refused, tc.refused)
			}
		})
	}
}

// The API server validates a CRD update whole (k8s.io/apiextensions-apiserver
// ValidateCustomResourceDefinitionUpdate: every schema, default and x-kubernetes-validations rule,
// the names and scope, the stored versions), and a refusal fails kapp's deploy at the CRD.
// Measured with kapp v0.66.0 on kube-apiserver v1.37.2: a default of the wrong type added to the
// CRD fails `spec.validation.openAPIV3Schema.properties[spec].properties[note].default: Invalid
// value: "integer":  in body must be of type string: "integer"` (check exited 0: only the stored
// versions were judged); a valid default changed deploys. The binary hands the server's
// validation to the library (Inputs.CRDUpdate), as here.
func TestCRDUpdateTheServerRefusesFailsTheGate(t *testing.T) {
	const vault = "apiVersion: crdapplied.rebasegen.dev/v1\nkind: Vault\nmetadata: {name: nightly, namespace: vaults}\nspec: {bucket: backups, note: a}\n"
	note := func(schema string) string {
		return vaultCRD(strings.Replace(crdVersion("v1", true, true, false), "note: {type: string}", "note: "+schema, 1))
	}
	for _, tc := range []struct {
		name, live, crd string
		refusal         []string // what the evidence holds; nil: accepted
	}{
		{name: "default of the wrong type added", live: note("{type: string}"), crd: note("{type: string, default: 5}"),
			refusal: []string{"spec.validation.openAPIV3Schema.properties[spec].properties[note].default: Invalid value:", "must be of type string"}},
		{name: "second storage version", live: note("{type: string}"), crd: vaultCRD(crdVersion("v1", true, true, false), crdVersion("v2", true, true, false)),
			refusal: []string{"spec.versions: Invalid value: must have exactly one version marked as storage version"}},
		// controls: kapp's deploy of these succeeds
		{name: "valid default changed", live: note("{type: string, default: old}"), crd: note("{type: string, default: new}")},
		{name: "CRD unchanged", live: note("{type: string}"), crd: note("{type: string}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{
				Desired:   []string{writeFile(t, "desired.yaml", tc.crd+"---\n"+vault)},
				Live:      []string{writeFile(t, "live.yaml", liveCRD(t, tc.live, "v1")+"---\n"+kappApplied(t, vault, func(map[string]any) {}))},
				CRDUpdate: apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate,
			}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			var refused []string
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind != "CustomResourceDefinition" || !f.Fails || f.Kind == verdict.KindResidual {
					continue
				}
				refused = append(refused, f.Evidence)
				if f.Kind != verdict.KindImmutable || !strings.Contains(f.Evidence, "never have kapp replace a CRD") {
					t.Errorf("check: want %s with the CRD's remedy, got %s %s: %s", verdict.KindImmutable, f.Kind, f.Path, f.Evidence)
				}
				for _, r := range tc.refusal {
					if !strings.Contains(f.Evidence, r) {
						t.Errorf("check: want the server's %q in %s", r, f.Evidence)
					}
				}
			}
			if (len(refused) > 0) != (tc.refusal != nil) {
				t.Errorf("check: the CRD's update refused: %q, want %v", refused, tc.refusal != nil)
			}
		})
	}
}

// A CRD's group, kind, plural and scope may not change (the API server refuses the update,
// k8s.io/apiextensions-apiserver validateCustomResourceDefinitionSpecUpdate); the remedy check
// gave was kapp.k14s.io/update-strategy: fallback-on-replace, a new name or kapp.k14s.io/versioned,
// each of which has kapp delete the CRD, and deleting a CRD deletes every custom resource of it.
// The remedy is a new CRD and a migration, and never replacing one.
func TestCRDRefusalNeverSuggestsReplacingIt(t *testing.T) {
	for _, tc := range []struct {
		path  string
		value any
	}{
		{"spec.group", "other.rebasegen.dev"},
		{"spec.names.kind", "Backup2"},
		{"spec.names.plural", "backups2"},
		{"spec.scope", "Cluster"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			in := fixtureEdited(t, "crd-defaults", "CustomResourceDefinition", func(u *unstructured.Unstructured) {
				if err := unstructured.SetNestedField(u.Object, tc.value, strings.Split(tc.path, ".")...); err != nil {
					t.Fatal(err)
				}
			})
			found := false
			for _, f := range checked(t, in).Findings(verdict.Gate{}) {
				if f.Resource.Kind != "CustomResourceDefinition" || f.Path != tc.path {
					continue
				}
				found = true
				if f.Kind != verdict.KindImmutable || !f.Fails {
					t.Errorf("%s: %s (fails %v), want a failing %s", f.Path, f.Kind, f.Fails, verdict.KindImmutable)
				}
				if strings.Contains(f.Evidence, "annotate the manifest") || strings.Contains(f.Evidence, "new name") ||
					!strings.Contains(f.Evidence, "takes a new CRD beside this one and a migration of its custom resources") || !strings.Contains(f.Evidence, "never have kapp replace a CRD") {
					t.Errorf("%s: the remedy must be a new CRD, never a replacement: %s", f.Path, f.Evidence)
				}
			}
			if !found {
				t.Errorf("no finding at %s", tc.path)
			}
		})
	}
}
