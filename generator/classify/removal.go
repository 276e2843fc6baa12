package classify

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

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
	// aliases: Derived's answers, by kind, map and field (an alias is the kind's, whatever the
	// values)
	mu      sync.Mutex
	aliases map[string]bool
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

// Stored returns what the API server's defaulting and conversion make of obj, an object kapp
// applies: the server derives some fields from others on every write, a pod spec's
// serviceAccountName from its deprecated alias serviceAccount where it is empty
// (k8s.io/kubernetes v1.37.2 pkg/apis/core/v1 defaults.go SetDefaults_PodSpec), so a
// rule copying the live alias puts back the field Git removed though the object kapp applies
// lacks it (newcomer8 N8-6). ok is false where no defaulting is known for the kind or it fails.
func (r *Removals) Stored(obj map[string]any) (map[string]any, bool) {
	if r == nil {
		return nil, false
	}
	res, known, err := r.d.defaulted(&unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)})
	if err != nil || !known || res.out == nil {
		return nil, false
	}
	return res.out.Object, true
}

// Derived returns the keys of the scalars desired declares in the map at parent (by index) that
// the API server's defaulting sets from the field leaf of that map, each an alias of leaf (a pod
// spec's serviceAccountName, set from its deprecated alias serviceAccount where it is empty,
// k8s.io/kubernetes v1.37.2 pkg/apis/core/v1 defaults.go SetDefaults_PodSpec): desired without
// the scalar, holding its value at leaf, is defaulted to declare it again, and without leaf too
// it is not (a default, such as restartPolicy Always, is no alias). A copy of leaf from the live
// object then puts the scalar back once Git removes it, though the object kapp applies lacks it
// (newcomer8 N8-6).
func (r *Removals) Derived(desired *unstructured.Unstructured, parent fielddiff.Path, leaf string) []string {
	if r == nil {
		return nil
	}
	m := mapAt(desired.Object, parent)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == leaf || !scalarValue(m[k]) {
			continue
		}
		key := desired.GetAPIVersion() + " " + desired.GetKind() + " " + fieldsOf(parent) + " " + leaf + " " + k
		r.mu.Lock()
		alias, known := r.aliases[key]
		r.mu.Unlock()
		if !known {
			alias = r.givesBackFrom(desired, parent, k, leaf, m[k]) && !r.givesBackFrom(desired, parent, k, "", m[k])
			r.mu.Lock()
			if r.aliases == nil {
				r.aliases = map[string]bool{}
			}
			r.aliases[key] = alias
			r.mu.Unlock()
		}
		if alias {
			out = append(out, k)
		}
	}
	return out
}

// givesBackFrom reports whether the server's defaulting of desired without key in the map at
// parent, holding want at leaf instead (leaf "": nowhere), declares want at key.
func (r *Removals) givesBackFrom(desired *unstructured.Unstructured, parent fielddiff.Path, key, leaf string, want any) bool {
	u := desired.DeepCopy()
	m := mapAt(u.Object, parent)
	if m == nil {
		return false
	}
	delete(m, key)
	if leaf != "" {
		m[leaf] = runtime.DeepCopyJSONValue(want)
	}
	made, ok := r.Stored(u.Object)
	if !ok {
		return false
	}
	v, ok := mapAt(made, parent)[key]
	return ok && fielddiff.Equal(v, want)
}

// fieldsOf is p without its list items' indexes or keys, for keys of the kind's answers.
func fieldsOf(p fielddiff.Path) string {
	var b strings.Builder
	for _, pe := range p {
		if pe.FieldName != nil {
			b.WriteString("." + *pe.FieldName)
		} else {
			b.WriteString("[]")
		}
	}
	return b.String()
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
	} else if !newMap(fc, d) && !c.aliasOfRemoved(fc, d) && !otherItem(fc, d) {
		return false
	}
	v, ok := c.sentDefaulted(fc, d.Path)
	return ok && fielddiff.Equal(v, d.Live)
}

// sentDefaulted is the value at path of what kapp last applied (fc.sent) as the API server's
// defaulting makes it; false where there is none, or no defaulting of the kind is known.
func (c *classifier) sentDefaulted(fc fieldContext, path fielddiff.Path) (any, bool) {
	if fc.sent == nil {
		return nil, false
	}
	sent := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(fc.sent)}
	res, known, err := c.defaults.defaulted(sent)
	if err != nil || !known || res.out == nil {
		return nil, false
	}
	return path.GetDeclared(res.out.Object)
}

// aliasOfRemoved reports whether d, a field only the live object holds, is an alias of a field
// beside it that kapp's last apply declared and the manifest no longer does: the server's
// defaulting of the manifest holding d's live value sets that field to what kapp last applied
// (a pod spec's deprecated serviceAccount, from which the server's defaulting sets
// serviceAccountName, k8s.io/kubernetes v1.37.2 pkg/apis/core/v1 defaults.go
// SetDefaults_PodSpec). The deploy's update lacks both, and the server removes the alias with the
// field Git removed (newcomer9 N9-9: it was taken for an admission plugin's, a ghost diff). A
// value the server defaults from a field Git removed without giving that field back (a Service's
// externalTrafficPolicy once Git removes type: NodePort) is no alias: its update strategy drops
// it, whatever a rule copied.
func (c *classifier) aliasOfRemoved(fc fieldContext, d fielddiff.Delta) bool {
	if len(d.Path) < 2 || d.Path[len(d.Path)-1].FieldName == nil {
		return false
	}
	parent := d.Path[:len(d.Path)-1]
	sent, _ := fc.sentAt.GetDeclared(parent)
	was, _ := sent.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(was)) {
		if _, declared := fielddiff.FromFields([]string{k}).GetDeclared(mapAt(fc.desired.Object, parent)); declared || !scalarValue(was[k]) {
			continue
		}
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(fc.desired.Object)}
		m := mapAt(u.Object, parent)
		if m == nil {
			return false
		}
		m[*d.Path[len(d.Path)-1].FieldName] = runtime.DeepCopyJSONValue(d.Live)
		res, known, err := c.defaults.defaulted(u)
		if err != nil || !known || res.out == nil {
			return false
		}
		if v, ok := append(slices.Clone(parent), fieldpath.PathElement{FieldName: &k}).GetDeclared(res.out.Object); ok && fielddiff.Equal(v, was[k]) {
			return true
		}
	}
	return false
}

// mapAt is the map obj holds at p; nil where it holds none.
func mapAt(obj map[string]any, p fielddiff.Path) map[string]any {
	v, _ := p.GetDeclared(obj)
	m, _ := v.(map[string]any)
	return m
}

// scalarValue reports whether v is a string, number or bool.
func scalarValue(v any) bool {
	switch v.(type) {
	case string, bool, int64, float64:
		return true
	}
	return false
}

// otherItem reports whether d's path goes through an item of a list without merge keys, selected
// by index, that Git changed: the manifest's item there is not the one kapp last applied there (a
// ServiceAccount subject inserted before the User subject whose apiGroup the server defaulted; a
// Pod limit before the Container limit whose default it made). The items are told apart by
// content, not position: the live value is the server's default of another item, which the
// deploy's update removes, not a value added during admission (newcomer12 N12-2).
func otherItem(fc fieldContext, d fielddiff.Delta) bool {
	for j, pe := range d.Path {
		if pe.Index == nil {
			continue
		}
		mv, inManifest := d.Path[:j+1].GetDeclared(fc.desired.Object)
		sv, inSent := fc.sentAt.GetDeclared(d.Path[:j+1])
		if inManifest && inSent && !fielddiff.Equal(mv, sv) {
			return true
		}
	}
	return false
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
