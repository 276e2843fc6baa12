package fielddiff

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// StoredAs reports whether have, the live value at p, is what the API server stored for sent, the
// value an applier's record of its last write (applied: kapp.k14s.io/original, kubectl's
// last-applied-configuration) holds there: the same value, or the same resource quantity in the
// server's canonical form (cpu "0.5" stored as 500m). A value Git changed since then is then
// told from one changed on the cluster whatever form the manifest wrote it in.
func StoredAs(applied map[string]any, p Path, sent, have any) bool {
	if Equal(sent, have) {
		return true
	}
	a, ok := QuantityOf(sent)
	b, ok2 := QuantityOf(have)
	if !ok || !ok2 || a.Cmp(b) != 0 {
		return false
	}
	// Equal as quantities; a quantity field only if the typed round trip writes it so (an env
	// value "0.5" stays a string the server keeps as written). Reached only for such pairs: the
	// round trip of the whole object is not paid for every differing value.
	n, ok := p.GetDeclared(Normalize(&unstructured.Unstructured{Object: applied}).Object)
	return ok && Equal(n, have)
}

// QuantityOf reads v, a value decoded from YAML or JSON, as a resource quantity.
func QuantityOf(v any) (resource.Quantity, bool) {
	var s string
	switch t := v.(type) {
	case string:
		s = t
	case int64:
		s = strconv.FormatInt(t, 10)
	case float64:
		s = strconv.FormatFloat(t, 'f', -1, 64)
	default:
		return resource.Quantity{}, false
	}
	q, err := resource.ParseQuantity(s)
	return q, err == nil
}
