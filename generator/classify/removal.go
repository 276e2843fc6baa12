package classify

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// Removals answers, with the API server's own defaulting code (the classifier's), what the server
// makes of a manifest once Git removes one of its declared values: a removal the server's
// defaults give back exactly (dnsPolicy: ClusterFirst) changes nothing, another (imagePullPolicy:
// IfNotPresent on an image :latest, which the server defaults to Always) is a change a rule
// copying the live value would hide. It is safe for use from several goroutines.
type Removals struct {
	d defaulter
	// version: how the server's minor version defaults otherwise (Report.Version), as the
	// classifier judges defaults with it
	version []versionDefault
}

// NewRemovals reads the CRDs' schemas among rep's inputs, which default custom resources, and
// the server's minor version's defaults.
func NewRemovals(rep *Report) (*Removals, error) {
	s, err := newCRDSchemas(rep.CRDs)
	if err != nil {
		return nil, err
	}
	return &Removals{d: defaulter{crds: s}, version: compileVersion(rep.Version)}, nil
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

// Gives returns what the server's defaulting (its minor version's too) makes at key (by key) of
// desired as it is: set is false where the defaulted object holds nothing there, known false
// where no defaulting is known for the kind or it fails.
func (r *Removals) Gives(desired *unstructured.Unstructured, key fielddiff.Path) (v any, set, known bool) {
	if r == nil {
		return nil, false, false
	}
	res, known, err := r.d.defaulted(desired.DeepCopy())
	if err != nil || !known || res.out == nil {
		return nil, false, false
	}
	v, set = key.GetDeclared(res.out.Object)
	v, set = r.versionDefault(desired, key, v, set)
	return v, set, true
}

// GivesBack reports whether the server's defaults give back exactly the scalar desired declares
// at p (by index) once Git removes it: then the removal changes nothing, and a copy of the live
// value there hides nothing. False where no defaulting is known (nothing gives it back).
func (r *Removals) GivesBack(desired *unstructured.Unstructured, p fielddiff.Path) bool {
	declared, ok := p.Get(desired.Object)
	if !ok {
		return false
	}
	key := fielddiff.ByKey(desired, p)
	given, ok := r.without(desired, p, key)
	given, ok = r.versionDefault(desired, key, given, ok)
	return ok && fielddiff.Equal(given, declared)
}

// versionDefault is what the server's minor version's defaulting sets at key, where its data
// (rulesets/defaults) holds a difference there that applies, as versionDifference judges it:
// the linked version sets the field as it did where the difference was seen (any value where
// the version sets none); else the linked version's (given, set). A difference only a create
// strategy makes is no default of an update, nor one the version moved there from it.
func (r *Removals) versionDefault(desired *unstructured.Unstructured, key fielddiff.Path, given any, set bool) (any, bool) {
	path := key.String()
	for _, v := range r.version {
		if v.Strategy || v.moved || v.APIVersion != desired.GetAPIVersion() || v.Kind != desired.GetKind() || !v.re.MatchString(path) ||
			v.ReferenceNotDefaulted == set || set && !v.NotDefaulted && !fielddiff.Equal(given, v.ReferenceValue) {
			continue
		}
		return v.Value, !v.NotDefaulted
	}
	return given, set
}

// defaultedForSent reports whether the server's defaulting of what kapp last applied (fc.sent)
// produces the live value of d, a field only the live object holds, where its defaulting of the
// manifest produces another value there, or nothing: the value follows from a field the manifest
// now declares otherwise, and this deploy's update changes it. Another value: a container's
// imagePullPolicy, Always for an image tagged latest, once Git pins the tag (newcomer9 N9-4).
// Nothing: a map holding it that kapp's last apply left to the server's default and the manifest
// now declares (a strategy's type: Recreate beside the defaulted rollingUpdate); a field whose map
// both declare stays as judged elsewhere (a Service's externalTrafficPolicy once Git removes type:
// NodePort: a removal made in Git, whose outcome Removals judges).
func (c *classifier) defaultedForSent(fc fieldContext, d fielddiff.Delta) bool {
	if fc.sent == nil || fc.defaulted == nil {
		return false
	}
	if _, inSent := fc.sentAt.GetDeclared(d.Path); inSent {
		return false
	}
	if dv, ok := fc.defaultedAt.Get(d.Path); ok {
		if fielddiff.Equal(dv, d.Live) {
			return false
		}
	} else if !newMap(fc, d) {
		return false
	}
	sent := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(fc.sent)}
	res, known, err := c.defaults.defaulted(sent)
	if err != nil || !known || res.out == nil {
		return false
	}
	v, ok := d.Path.GetDeclared(res.out.Object)
	return ok && fielddiff.Equal(v, d.Live)
}

// newMap reports whether a map holding d is one kapp's last apply left to the server's default
// and the manifest now declares.
func newMap(fc fieldContext, d fielddiff.Delta) bool {
	for k := len(d.Path) - 1; k >= 2; k-- {
		_, inManifest := d.Path[:k].GetDeclared(fc.desired.Object)
		_, inSent := fc.sentAt.GetDeclared(d.Path[:k])
		if inManifest && !inSent {
			return true
		}
	}
	return false
}
