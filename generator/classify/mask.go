package classify

import (
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// isSecretData: a value of a Secret, masked in every output: everything at its top level but the
// fields that carry no value (a field the API server does not know, such as a misspelt stringData,
// holds the values the manifest meant to give).
func isSecretData(id pair.Identity, p fielddiff.Path) bool {
	if id.Group != "" || id.Kind != "Secret" || len(p) == 0 || p[0].FieldName == nil {
		return false
	}
	switch *p[0].FieldName {
	case "apiVersion", "kind", "metadata", "type", "immutable":
		return false
	}
	return true
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
