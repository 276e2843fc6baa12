package classify

import (
	"context"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CRDUpdateValidation is the apiextensions apiserver's validation of a CustomResourceDefinition
// update: k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation
// ValidateCustomResourceDefinitionUpdate itself, which its registry strategy's ValidateUpdate
// calls (group, names and scope immutable once the CRD is Established, every schema and
// x-kubernetes-validations rule compiled and costed, defaults valid against their schemas, stored
// versions kept...). Its package links the API server's webhook client (grpc, an OpenTelemetry
// SDK), which classify, linked by the compare library, does not (TestImportGraph): the binary
// hands the function over.
type CRDUpdateValidation func(ctx context.Context, obj, old *apiextensions.CustomResourceDefinition) field.ErrorList

var crdKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// crdRemedy is what to do about a CRD update the API server refuses, whatever refuses it (its
// validation, rulesets/immutable.yaml): never replace it, which kapp's fallback-on-replace,
// always-replace or a new name would do, as deleting a CRD deletes every custom resource of it.
const crdRemedy = "change the CRD so that the server accepts the update: a version live objects may be stored at stays in spec.versions, served: false, until a storage migration removes it from status.storedVersions; a group, kind, plural or scope that must change takes a new CRD beside this one and a migration of its custom resources to it; never have kapp replace a CRD (kapp.k14s.io/update-strategy fallback-on-replace or always-replace): deleting it deletes every custom resource of it"

// validationOf is the API server's update validation of gk that is run here: updateValidations',
// and for a CRD its registry strategy with the validation the caller handed over.
func (c *classifier) validationOf(gk schema.GroupKind) (updateValidation, bool) {
	if gk == crdKind {
		// a refused CRD update fails kapp's deploy before any custom resource is applied
		// (measured, kapp v0.66.0 on kube-apiserver v1.37.2)
		return updateValidation{fn: "pkg/registry/customresourcedefinition PrepareForUpdate, ValidateUpdate (pkg/apis/apiextensions/validation ValidateCustomResourceDefinitionUpdate)",
			strategy: crdStrategy{c.crdValidation}}, c.crdValidation != nil
	}
	v, ok := updateValidations[gk]
	return v, ok
}

// crdStrategy is k8s.io/apiextensions-apiserver pkg/registry/customresourcedefinition's strategy
// on an update, whose package links the API server's storage (etcd, TestImportGraph): its
// PrepareForUpdate, as it runs with v1.37's default feature gates (dropDisabledFields drops
// nothing: CRDValidationRatcheting, CustomResourceFieldSelectors and
// CRDObservedGenerationTracking are on), and its ValidateUpdate, which calls validate.
// TestCRDStrategyIsTheServers holds both to the real strategy.
type crdStrategy struct{ validate CRDUpdateValidation }

// PrepareForUpdate keeps the live status (a client does not write it through the main resource)
// and records the new storage version among the stored ones, which the validation then checks.
func (crdStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	nw, o := obj.(*apiextensions.CustomResourceDefinition), old.(*apiextensions.CustomResourceDefinition)
	nw.Status = o.Status
	if !apiequality.Semantic.DeepEqual(o.Spec, nw.Spec) {
		nw.Generation = o.Generation + 1
	}
	for _, v := range nw.Spec.Versions {
		if v.Storage {
			if !apiextensions.IsStoredVersion(nw, v.Name) {
				nw.Status.StoredVersions = append(nw.Status.StoredVersions, v.Name)
			}
			break
		}
	}
}

func (s crdStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return s.validate(ctx, obj.(*apiextensions.CustomResourceDefinition), old.(*apiextensions.CustomResourceDefinition))
}
