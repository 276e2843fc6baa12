package classify

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// crdUpdate is what the apiextensions apiserver validates an update of a custom resource of one
// CRD version with (k8s.io/apiextensions-apiserver pkg/registry/customresource/strategy.go
// ValidateUpdate): the version's OpenAPI schema (enum, pattern, maxLength...), its list types and
// its x-kubernetes-validations CEL rules, whose transition rules (oldSelf) make a field immutable
// (probe16 P16-4). Compiled on the first custom resource of the version with a change made in
// Git, once per run: workers share it.
type crdUpdate struct {
	props  *apiextensionsinternal.JSONSchemaProps
	status bool // the version has a status subresource: an update keeps the live status

	once   sync.Once
	schema apiservervalidation.SchemaValidator
	cel    *cel.Validator // nil without x-kubernetes-validations
	err    error
}

// crdUpdateRefused says why the API server refuses kapp's in-place update of fc's custom
// resource, as evidence to append: its CRD's update validation fails on the manifest, pruned and
// defaulted as the server does a request, against the live object. As updateRefused, an error
// the update to what kapp last applied (kapp.k14s.io/original) meets as well is left out. The
// CRD is the desired one where the manifests declare it (appliedCRDs: kapp applies it first,
// probe17 P17-2), else the live one; a custom resource whose CRD is not among the inputs is not
// judged.
func (c *classifier) crdUpdateRefused(fc fieldContext) (string, bool) {
	if fc.crdRefusal == nil {
		return "", false
	}
	return fc.crdRefusal.answer(func() string { return c.crdRefusalOf(fc) })
}

func (c *classifier) crdRefusalOf(fc fieldContext) string {
	// the CRD as kapp's deploy leaves it before it updates the custom resource (appliedCRDs)
	s := c.served.crds.lookup(fc.desired.GroupVersionKind())
	// an old object of another version is converted by the server first (the CRD's conversion
	// strategy, perhaps a webhook): not judged here
	if s == nil || fc.live.GetAPIVersion() != fc.desired.GetAPIVersion() {
		return ""
	}
	// a schema the server's validator cannot be built from: the server refuses the CRD itself
	errs, err := s.updateErrors(fc.desired.Object, fc.live.Object)
	if err != nil {
		return ""
	}
	if len(errs) > 0 && fc.sent != nil {
		if before, err := s.updateErrors(fc.sent, fc.live.Object); err == nil {
			errs = notBefore(errs, before)
		}
	}
	if len(errs) == 0 {
		return ""
	}
	crd := "CRD " + escape.Text(s.crdName)
	if s.desired {
		crd += " as the manifests declare it, which kapp applies before the custom resources,"
	}
	return fmt.Sprintf("; kapp's deploy fails here: the API server refuses kapp's update of the %s, as the validation of %s says (k8s.io/apiextensions-apiserver %s pkg/registry/customresource ValidateUpdate: its OpenAPI schema and x-kubernetes-validations rules, oldSelf the live object): %s; change the manifest so that the update is valid, annotate it with %s: fallback-on-replace (kapp then deletes and recreates the object), or give the object a new name",
		fc.id.Kind, crd, kappconv.Kubernetes, escape.Text(strings.Join(errorTexts(errs), "; ")), kappconv.UpdateStrategy)
}

// updateErrors are the errors of the update sending manifest over live.
func (s *crdSchema) updateErrors(manifest, live map[string]any) (field.ErrorList, error) {
	u := &s.update
	u.once.Do(func() {
		u.schema, _, u.err = apiservervalidation.NewSchemaValidator(u.props)
		// as the server's NewStrategy: compiled once, the per-call cost limit the server's
		u.cel = cel.NewValidator(s.structural, true, celconfig.PerCallLimit)
	})
	if u.err != nil {
		return nil, u.err
	}
	// the request as the server validates it: pruned and defaulted (customresource_handler.go),
	// the server's own metadata kept (not what this judges), and with a status subresource the
	// live status (PrepareForUpdate)
	defaulted, err := s.apply(s.pruned(&unstructured.Unstructured{Object: manifest}))
	if err != nil {
		return nil, nil // the defaulting stage says so
	}
	nw, old := defaulted.Object, runtime.DeepCopyJSON(live)
	nw["metadata"] = runtime.DeepCopyJSONValue(old["metadata"])
	if u.status {
		delete(nw, "status")
		if st, ok := old["status"]; ok {
			nw["status"] = runtime.DeepCopyJSONValue(st)
		}
	}
	// the server's order: schema (ratcheting: a value the live object holds already passes),
	// list types unless the live object breaks them, then CEL unless an error blocks it
	correlated := common.NewCorrelatedObject(nw, old, &model.Structural{Structural: s.structural})
	errs := apiservervalidation.ValidateCustomResourceUpdate(nil, nw, old, u.schema, apiservervalidation.WithRatcheting(correlated))
	if len(structurallisttype.ValidateListSetsAndMaps(nil, s.structural, old)) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.structural, nw)...)
	}
	if u.cel != nil && !slices.ContainsFunc(errs, blocksCEL) {
		celErrs, _ := u.cel.Validate(context.Background(), nil, s.structural, nw, old, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(correlated))
		errs = append(errs, celErrs...)
	}
	return errs, nil
}

// blocksCEL reports whether the server skips the CEL rules for e (strategy.go hasBlockingErr):
// the update is refused then all the same.
func blocksCEL(e *field.Error) bool {
	switch e.Type {
	case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
		return true
	}
	return false
}
