package classify

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
)

// Removals answers, with the API server's own defaulting code (the classifier's), what the server
// makes of a manifest once Git removes one of its declared values: a removal the server's
// defaults give back exactly (dnsPolicy: ClusterFirst) changes nothing, another (imagePullPolicy:
// IfNotPresent on an image :latest, which the server defaults to Always) is a change a rule
// copying the live value would hide. It is safe for use from several goroutines.
type Removals struct {
	d defaulter
}

// NewRemovals reads the CRDs' schemas among the inputs, which default custom resources.
func NewRemovals(crds []load.Doc) (*Removals, error) {
	s, err := newCRDSchemas(crds)
	if err != nil {
		return nil, err
	}
	return &Removals{d: defaulter{crds: s}}, nil
}

// without returns what the server's defaulting makes at key (by key) of desired once the value
// at p (by index) is removed from it; ok is false where no defaulting is known for the kind or
// it fails, and where the defaulted object holds nothing at key.
func (r *Removals) without(desired *unstructured.Unstructured, p, key fielddiff.Path) (v any, ok bool) {
	if r == nil || len(p) == 0 {
		return nil, false
	}
	u := desired.DeepCopy()
	p.Remove(u.Object)
	res, known, err := r.d.defaulted(u)
	if err != nil || !known || res.out == nil {
		return nil, false
	}
	return key.GetDeclared(res.out.Object)
}

// GivesBack reports whether the server's defaults give back exactly the scalar desired declares
// at p (by index) once Git removes it: then the removal changes nothing, and a copy of the live
// value there hides nothing. False where no defaulting is known (nothing gives it back).
func (r *Removals) GivesBack(desired *unstructured.Unstructured, p fielddiff.Path) bool {
	declared, ok := p.Get(desired.Object)
	if !ok {
		return false
	}
	given, ok := r.without(desired, p, fielddiff.ByKey(desired, p))
	return ok && fielddiff.Equal(given, declared)
}
