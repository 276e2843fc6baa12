package classify

import (
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// isSecretData: a Secret's data or stringData value, masked in every output.
func isSecretData(id pair.Identity, p fielddiff.Path) bool {
	if id.Group != "" || id.Kind != "Secret" || len(p) == 0 || p[0].FieldName == nil {
		return false
	}
	return *p[0].FieldName == "data" || *p[0].FieldName == "stringData"
}

// isLastApplied: kubectl's copy of the applied manifest, a Secret's values included; never shown.
func isLastApplied(p fielddiff.Path) bool {
	return p.String() == `metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]`
}

// Masked replaces Secret values in every output.
const Masked = "(masked)"

func mask(v any) any {
	if v == nil {
		return nil
	}
	return Masked
}
