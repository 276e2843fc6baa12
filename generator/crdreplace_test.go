package generator_test

import (
	"context"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	crdregistry "k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A CRD kapp applies a change to by deleting it and creating the manifest's (issue 23): deleting
// a CRD deletes every custom resource of it. kapp v0.66.0 (pkg/kapp/clusterapply
// add_or_update_change.go ApplyStrategy) reads kapp.k14s.io/update-strategy from the manifest
// of a resource its diff, after the rules, shows as an update (pkg/kapp/diff change.go op): under
// always-replace it replaces the object (UpdateAlwaysReplaceStrategy: replace, deleting the live
// object, then creating the manifest); under fallback-on-replace it updates, and replaces where
// the server refuses the update as invalid (UpdateOrFallbackOnReplaceStrategy: errors.IsInvalid);
// without an update (the CRD unchanged) it applies no strategy at all. check passed such a CRD
// (exit 0, a pending change): the refusal of the update is what the remedy of a CRD is built on,
// and the replace strategies skipped it (generator/classify immutableChange: a CRD has no create
// validation). The oracle of whether the server refuses the update is the apiextensions
// apiserver's registry strategy itself, on the same CRDs (serverRefusesCRDUpdate).
func TestCRDReplacedByKappFailsTheGate(t *testing.T) {
	const vault = "apiVersion: crdreplace.rebasegen.dev/v1\nkind: Vault\nmetadata: {name: nightly, namespace: vaults}\nspec: {bucket: backups, note: a}\n"
	v1, v2 := crdVersion("v1", true, true, false), crdVersion("v2", true, true, false)
	described := strings.Replace(v1, "note: {type: string}", "note: {type: string, description: free text}", 1)
	for _, tc := range []struct {
		name          string
		live, desired string   // the update strategy of the live CRD, of the manifest's ("": none)
		liveVersions  []string // the live CRD's versions (v1 stored)
		versions      []string // the manifest's
		edited        bool     // a person changed the live CRD after kapp applied it (a drift)
		noValidation  bool     // generator.Inputs.CRDUpdate nil: a library user's
		refused       bool     // the oracle: the server refuses the update
		fails         bool
		evidence      []string // in each failing finding's
	}{
		{name: "always-replace, a field changed", live: "always-replace", desired: "always-replace", liveVersions: []string{v1}, versions: []string{described},
			fails: true, evidence: []string{"kapp.k14s.io/update-strategy: always-replace", "the live CustomResourceDefinition, and with it every custom resource of it", "remove the annotation"}},
		{name: "always-replace added in Git, nothing else changed", live: "", desired: "always-replace", liveVersions: []string{v1}, versions: []string{v1},
			fails: true, evidence: []string{"kapp.k14s.io/update-strategy: always-replace", "every custom resource of it"}},
		{name: "always-replace, changed on the cluster", live: "always-replace", desired: "always-replace", edited: true, liveVersions: []string{v1}, versions: []string{v1},
			fails: true, evidence: []string{"kapp.k14s.io/update-strategy: always-replace", "every custom resource of it"}},
		{name: "always-replace, unchanged", live: "always-replace", desired: "always-replace", liveVersions: []string{v1}, versions: []string{v1}},
		{name: "fallback-on-replace, a stored version dropped", live: "fallback-on-replace", desired: "fallback-on-replace", liveVersions: []string{v1}, versions: []string{v2},
			refused: true, fails: true, evidence: []string{"status.storedVersions[0]: Invalid value: missing from spec.versions", "fallback-on-replace", "the live CustomResourceDefinition, and with it every custom resource of it", "remove the annotation"}},
		{name: "fallback-on-replace, the scope changed", live: "fallback-on-replace", desired: "fallback-on-replace", liveVersions: []string{v1}, versions: []string{v1},
			refused: true, fails: true, evidence: []string{"spec.scope", "fallback-on-replace", "every custom resource of it"}},
		{name: "fallback-on-replace, a change the server accepts", live: "fallback-on-replace", desired: "fallback-on-replace", liveVersions: []string{v1}, versions: []string{described}},
		{name: "fallback-on-replace, unchanged", live: "fallback-on-replace", desired: "fallback-on-replace", liveVersions: []string{v1}, versions: []string{v1}},
		// a library user's: the update is not judged, so any change may have kapp replace the CRD
		{name: "fallback-on-replace, no update validation, a change", live: "fallback-on-replace", desired: "fallback-on-replace", liveVersions: []string{v1}, versions: []string{described},
			noValidation: true, fails: true, evidence: []string{"fallback-on-replace", "generator.Inputs.CRDUpdate", "every custom resource of it"}},
		{name: "fallback-on-replace, no update validation, unchanged", live: "fallback-on-replace", desired: "fallback-on-replace", liveVersions: []string{v1}, versions: []string{v1}, noValidation: true},
		{name: "always-replace, no update validation, a change", live: "always-replace", desired: "always-replace", liveVersions: []string{v1}, versions: []string{described},
			noValidation: true, fails: true, evidence: []string{"always-replace", "every custom resource of it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scope := "Namespaced"
			if strings.Contains(tc.name, "scope") {
				scope = "Cluster"
			}
			live := replacedCRD(tc.live, "Namespaced", tc.liveVersions...)
			desired := replacedCRD(tc.desired, scope, tc.versions...)
			liveObj := kappApplied(t, live, func(o map[string]any) {
				o["status"] = map[string]any{"storedVersions": []any{"v1"},
					"acceptedNames": map[string]any{"kind": "Vault", "plural": "vaults", "singular": "vault", "listKind": "VaultList"},
					"conditions":    []any{map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"}}}
				if tc.edited {
					o["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["served"] = false
				}
			})
			if !tc.edited {
				if errs := serverCRDUpdateErrors(t, liveObj, desired); (len(errs) > 0) != tc.refused {
					t.Fatalf("oracle: the server's errors on the update %v; the case says refused: %v", errs, tc.refused)
				}
			}
			in := generator.Inputs{
				Desired: []string{writeFile(t, "desired.yaml", desired+"---\n"+vault)},
				Live:    []string{writeFile(t, "live.yaml", liveObj+"---\n"+kappApplied(t, vault, func(map[string]any) {}))},
			}
			if !tc.noValidation {
				in.CRDUpdate = apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate
			}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			var failing []verdict.Finding
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind == "CustomResourceDefinition" && f.Fails && f.Kind != verdict.KindResidual {
					failing = append(failing, f)
				}
			}
			if (len(failing) > 0) != tc.fails {
				t.Fatalf("check: failing findings on the CRD %v, want failing: %v", failing, tc.fails)
			}
			for _, f := range failing {
				want := verdict.KindImmutable
				if tc.edited {
					want = verdict.KindDrift // kapp reverts it, by replacing the CRD
				}
				if f.Kind != want {
					t.Errorf("check: %s %s, want %s: %s", f.Kind, f.Path, want, f.Evidence)
				}
				for _, e := range tc.evidence {
					if !strings.Contains(f.Evidence, e) {
						t.Errorf("check: %s %s: want %q in %s", f.Kind, f.Path, e, f.Evidence)
					}
				}
			}
		})
	}
}

// replacedCRD is the test's Vault CRD under the update strategy (none where empty), of scope and
// with versions.
func replacedCRD(strategy, scope string, versions ...string) string {
	meta := "{name: vaults.crdreplace.rebasegen.dev}"
	if strategy != "" {
		meta = "{name: vaults.crdreplace.rebasegen.dev, annotations: {kapp.k14s.io/update-strategy: " + strategy + "}}"
	}
	return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: " + meta + "\n" +
		"spec: {group: crdreplace.rebasegen.dev, scope: " + scope + ", names: {kind: Vault, plural: vaults, singular: vault, listKind: VaultList}, versions: [" + strings.Join(versions, ", ") + "]}\n"
}

// serverCRDUpdateErrors are the errors of the apiextensions apiserver's registry strategy on the
// update of the live CRD to the manifest: its PrepareForUpdate, then its ValidateUpdate, on both
// converted to the internal type as the server converts them.
func serverCRDUpdateErrors(t *testing.T, live, manifest string) field.ErrorList {
	t.Helper()
	scheme := runtime.NewScheme()
	apiextensionsinstall.Install(scheme)
	internal := func(doc string) *apiextensions.CustomResourceDefinition {
		var v1 apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal([]byte(doc), &v1); err != nil {
			t.Fatal(err)
		}
		scheme.Default(&v1)
		out := &apiextensions.CustomResourceDefinition{}
		if err := scheme.Convert(&v1, out, nil); err != nil {
			t.Fatal(err)
		}
		return out
	}
	old, nw := internal(live), internal(manifest)
	// as rest.BeforeUpdate: the server's own metadata kept
	nw.ResourceVersion, nw.UID, nw.CreationTimestamp = old.ResourceVersion, old.UID, old.CreationTimestamp
	strategy := crdregistry.NewStrategy(scheme)
	strategy.PrepareForUpdate(context.Background(), nw, old)
	return strategy.ValidateUpdate(context.Background(), nw, old)
}
