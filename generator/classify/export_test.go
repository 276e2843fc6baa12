package classify

import (
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// UpdateErrors is updateErrors for the external tests: the errors the API server's update
// validation of sent's kind (updateValidations; a CRD's with the server's own validation, as the
// binary hands it over) finds in the update sending sent over live, unfiltered; judged is false
// for a kind it does not run for.
func UpdateErrors(sent, live map[string]any) (errs []string, judged bool) {
	gk := schema.FromAPIVersionAndKind(sent["apiVersion"].(string), sent["kind"].(string)).GroupKind()
	v, ok := (&classifier{crdValidation: apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate}).validationOf(gk)
	if !ok {
		return nil, false
	}
	return errorTexts(updateErrors(v, gatesAt(nil), sent, live)), true
}
