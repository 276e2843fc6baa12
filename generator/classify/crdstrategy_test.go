package classify

import (
	"context"
	"slices"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	crdregistry "k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// crdStrategy stands in for the registry strategy classify may not link (its package links the
// API server's storage): the real strategy, which a test may link, is the oracle, on what
// PrepareForUpdate makes of the new object and on what ValidateUpdate refuses.
func TestCRDStrategyIsTheServers(t *testing.T) {
	// one schema for every version: the internal type holds it at spec.validation (conversion
	// from v1 moves it there)
	schema := func(note apiextensions.JSONSchemaProps) *apiextensions.CustomResourceValidation {
		return &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{Type: "object",
			Properties: map[string]apiextensions.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"note": note}}}}}
	}
	version := func(name string, storage bool) apiextensions.CustomResourceDefinitionVersion {
		return apiextensions.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: storage}
	}
	crd := func(group string, stored []string, versions ...apiextensions.CustomResourceDefinitionVersion) *apiextensions.CustomResourceDefinition {
		names := apiextensions.CustomResourceDefinitionNames{Plural: "vaults", Singular: "vault", Kind: "Vault", ListKind: "VaultList"}
		return &apiextensions.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "vaults." + group, ResourceVersion: "7", Generation: 3},
			Spec: apiextensions.CustomResourceDefinitionSpec{Group: group, Names: names, Scope: apiextensions.NamespaceScoped, Versions: versions, Validation: schema(apiextensions.JSONSchemaProps{Type: "string"}),
				Conversion: &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter}, PreserveUnknownFields: new(bool)},
			Status: apiextensions.CustomResourceDefinitionStatus{StoredVersions: stored, AcceptedNames: names,
				Conditions: []apiextensions.CustomResourceDefinitionCondition{{Type: apiextensions.Established, Status: apiextensions.ConditionTrue}}},
		}
	}
	withDefault := crd("a.dev", nil, version("v1", true))
	withDefault.Spec.Validation = schema(apiextensions.JSONSchemaProps{Type: "string", Default: new(apiextensions.JSON(int64(5)))})
	for _, tc := range []struct {
		name     string
		old, nw  *apiextensions.CustomResourceDefinition
		refusals []string // what the server's errors hold, each
	}{
		{"unchanged", crd("a.dev", []string{"v1"}, version("v1", true)), crd("a.dev", nil, version("v1", true)), nil},
		{"version added as storage", crd("a.dev", []string{"v1"}, version("v1", true)), crd("a.dev", nil, version("v1", false), version("v2", true)), nil},
		{"stored version dropped", crd("a.dev", []string{"v1"}, version("v1", true)), crd("a.dev", nil, version("v2", true)),
			[]string{"status.storedVersions[0]: Invalid value: missing from spec.versions; v1 was previously a storage version"}},
		{"two of three stored versions dropped", crd("a.dev", []string{"v1", "v2", "v3"}, version("v3", true)), crd("a.dev", nil, version("v4", true)),
			[]string{"status.storedVersions[0]: Invalid value", "status.storedVersions[1]: Invalid value"}},
		{"two storage versions", crd("a.dev", []string{"v1"}, version("v1", true)), crd("a.dev", nil, version("v1", true), version("v2", true)),
			[]string{"must have exactly one version marked as storage version"}},
		{"group changed", crd("a.dev", []string{"v1"}, version("v1", true)), crd("b.dev", nil, version("v1", true)), []string{"spec.group: Invalid value: field is immutable"}},
		{"default of the wrong type", crd("a.dev", []string{"v1"}, version("v1", true)), withDefault, []string{"properties[note].default: Invalid value:  in body must be of type string"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ours, theirs := tc.nw.DeepCopy(), tc.nw.DeepCopy()
			ourStrategy, server := crdStrategy{apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate}, crdregistry.NewStrategy(crdScheme)
			ourStrategy.PrepareForUpdate(ctx, ours, tc.old.DeepCopy())
			server.PrepareForUpdate(ctx, theirs, tc.old.DeepCopy())
			if !apiequality.Semantic.DeepEqual(ours, theirs) {
				t.Errorf("PrepareForUpdate: got %+v, the server's %+v", ours, theirs)
			}
			got, want := errorTexts(ourStrategy.ValidateUpdate(ctx, ours, tc.old)), errorTexts(server.ValidateUpdate(ctx, theirs, tc.old))
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("ValidateUpdate: got %q, the server's %q", got, want)
			}
			for _, r := range tc.refusals {
				if !slices.ContainsFunc(want, func(e string) bool { return strings.Contains(e, r) }) {
					t.Errorf("the server's %q: want one holding %q (the case is not what it says)", want, r)
				}
			}
			if len(tc.refusals) == 0 && len(want) > 0 {
				t.Errorf("the server refuses %q: want the case accepted", want)
			}
		})
	}
}
