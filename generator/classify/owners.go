package classify

import (
	"bytes"
	"fmt"
	"maps"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
)

// owner is one managedFields entry with its field set.
type owner struct {
	Manager, Operation, Subresource, Time string
	fields                                *fieldpath.Set
}

func (o owner) String() string {
	s := fmt.Sprintf("manager %s, operation %s", o.Manager, o.Operation)
	if o.Subresource != "" {
		s += ", subresource " + o.Subresource
	}
	if o.Time != "" {
		s += ", at " + o.Time
	}
	return s
}

// owners reads metadata.managedFields with structured-merge-diff, keeping the field names it
// parses in names (nil: none kept).
func owners(live load.Object, names fieldNames) ([]owner, error) {
	meta, _ := live.Object["metadata"].(map[string]any)
	raw, _ := meta["managedFields"].([]any)
	var out []owner
	for i, item := range raw {
		field := fmt.Sprintf("metadata.managedFields[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, &load.Error{Source: live.Source, Field: field, Msg: "not a mapping"}
		}
		set, read := fieldpath.NewSet(), false
		if fv, ok := m["fieldsV1"].(map[string]any); ok && names.readFields(fv, set) {
			// read: the converter would encode fieldsV1 to JSON for FromJSON to parse again
			read, m = true, maps.Clone(m)
			delete(m, "fieldsV1")
		}
		var e metav1.ManagedFieldsEntry
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &e); err != nil {
			return nil, &load.Error{Source: live.Source, Field: field, Msg: err.Error()}
		}
		if !read { // FromJSON reads it, or says what is wrong
			set = &fieldpath.Set{}
			if e.FieldsV1 != nil {
				set = fieldpath.NewSet()
				if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
					return nil, &load.Error{Source: live.Source, Field: field + ".fieldsV1", Msg: "malformed: " + err.Error()}
				}
			}
		}
		t := ""
		if e.Time != nil {
			t = e.Time.UTC().Format("2006-01-02T15:04:05Z")
		}
		out = append(out, owner{Manager: e.Manager, Operation: string(e.Operation), Subresource: e.Subresource, Time: t, fields: set})
	}
	return out, nil
}

// readFields adds to s the fields of fieldsV1, a managedFields entry's fieldsV1 as decoded from
// JSON, exactly as fieldpath.Set.FromJSON reads the JSON encoding of it (readIterV1: "." marks
// a member, as does a key with nothing known below it; keys of unknown element types are
// dropped). It returns false, s then partly filled, for what FromJSON might read otherwise or
// refuse: a key FromJSON cannot parse, a value that is not a map, two keys naming the same
// element (FromJSON keeps the last in key order). Performance: encoding every entry's fieldsV1
// to JSON and parsing that again was most of the cost of reading managedFields, which a fleet's
// live objects all carry.
func readFields(fieldsV1 map[string]any, s *fieldpath.Set) bool {
	return fieldNames(nil).readFields(fieldsV1, s)
}

// fieldNames are the path elements of the field names ("f:NAME") readFields met, by key: one
// classification worker's (performance: parsing each key of every live object's managedFields
// was an allocation per key, and a fleet's objects use the same few hundred names). The
// elements are shared: nothing writes through their FieldName. A nil fieldNames keeps none.
type fieldNames map[string]fieldpath.PathElement

// maxFieldNames bounds a worker's fieldNames: input that names many fields costs what it did.
const maxFieldNames = 4096

// readFields is the package's readFields, its field names kept in names.
func (names fieldNames) readFields(fieldsV1 map[string]any, s *fieldpath.Set) bool {
	for k, v := range fieldsV1 {
		if k == "." {
			continue
		}
		pe, known := names[k]
		var err error
		if !known {
			pe, err = fieldpath.DeserializePathElement(k)
			if err == fieldpath.ErrUnknownPathElementType {
				continue
			}
			if err == nil && pe.FieldName != nil && names != nil && len(names) < maxFieldNames {
				names[k] = pe
			}
		}
		child, ok := v.(map[string]any)
		if err != nil || !ok {
			return false
		}
		var below fieldpath.Set
		if !names.readFields(child, &below) {
			return false
		}
		if _, dot := child["."]; dot || below.Empty() {
			if s.Members.Has(pe) {
				return false
			}
			s.Members.Insert(pe)
		}
		if !below.Empty() {
			if _, ok := s.Children.Get(pe); ok {
				return false
			}
			*s.Children.Descend(pe) = below
		}
	}
	return true
}

// owns reports whether o owns the field at p or a field below it (a delta may be a subtree).
func (o owner) owns(p fielddiff.Path) bool {
	if o.fields.Has(fieldpath.Path(p)) {
		return true
	}
	return !under(o.fields, fieldpath.Path(p)).Empty()
}

// under is the part of s below p.
func under(s *fieldpath.Set, p fieldpath.Path) *fieldpath.Set {
	for _, pe := range p {
		if s = s.WithPrefix(pe); s.Empty() {
			break
		}
	}
	return s
}

// wholeValue returns the nearest proper ancestor of p that managedFields hold as one value: some
// entry owns it and no entry records a field below it. structured-merge-diff records nothing
// inside an atomic list (a CRD list without list-type markers, x-kubernetes-list-type: atomic),
// an atomic map or a scalar, so its owner owns every item below it; a granular list or map always
// has its items' owners recorded below it. ok is false when no such ancestor exists.
func wholeValue(os []owner, p fielddiff.Path) (fielddiff.Path, bool) {
	for n := len(p) - 1; n > 0; n-- {
		q := fieldpath.Path(p[:n])
		owned, below := false, false
		for _, o := range os {
			owned = owned || o.fields.Has(q)
			below = below || !under(o.fields, q).Empty()
		}
		if below {
			return nil, false // granular here, and so at every ancestor above
		}
		if owned {
			return fielddiff.Path(q), true
		}
	}
	return nil, false
}

// otherOwners are the managers other than the appliers owning p, newest first; entries of the
// same time by manager name, so that the order of managedFields never changes a verdict (two
// Apply entries often share a second).
func otherOwners(os []owner, a appliers, p fielddiff.Path) []owner {
	var out []owner
	for _, o := range os {
		if !a.has(o.Manager) && o.owns(p) {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Time != out[j].Time {
			return out[i].Time > out[j].Time
		}
		if out[i].Manager != out[j].Manager {
			return out[i].Manager < out[j].Manager
		}
		return out[i].Operation+out[i].Subresource < out[j].Operation+out[j].Subresource
	})
	return out
}
