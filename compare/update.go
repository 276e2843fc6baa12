package compare

// What an update (WithUpdate) does: the desired object replaces the live one whole, the
// managedFields it carries included.

import (
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// update judges an update (PUT): the desired object replaces the live one whole; the server
// defaults what it omits, and keeps status and its own metadata.
func (j *judgement) update(res classify.Resource) {
	for _, f := range res.Findings {
		if f.KappView {
			continue // the objects agree; only kapp reads them differently
		}
		if f.Change != fielddiff.Added {
			j.declared(f)
			continue
		}
		switch f.Class {
		case classify.Defaulted, classify.KappArtifact:
			j.add(f, Kept, "the update omits it and the server defaults it to the live value again")
		case classify.Calculated:
			j.add(f, Unknown, "the update omits a field the server calculated: whether the kind's update strategy keeps it cannot be known offline")
		case classify.Admission:
			j.add(f, Unknown, "the update omits a field admission added: whether admission adds it again cannot be known offline")
		case classify.Adoption:
			j.add(f, Unknown, "the update omits bookkeeping another tool or the server wrote: whether the server writes it again cannot be known offline")
		case classify.Unknown:
			if !res.NoCRD {
				j.add(f, Removed, "the update omits it")
				break
			}
			// a schema default may put it back (the server's answer on widget-noop-update, read
			// without its CRD): Changes would have the caller write on every pass
			j.add(f, Unknown, "the update omits it: whether the schema of "+res.ID.Kind+" defaults it to the live value again cannot be known offline without its CRD (WithCRDs)")
		default:
			j.add(f, Removed, "the update omits it")
		}
	}
}

// managedFields judges the managedFields an update carries: the server takes them in place of
// live's (apimachinery's FieldManager.Update): an empty list or one empty entry resets them, a
// list it decodes replaces them; omitted (or not decodable) they stay live's.
func (j *judgement) managedFields(desired, live *unstructured.Unstructured) error {
	raw, ok, _ := unstructured.NestedFieldNoCopy(desired.Object, "metadata", "managedFields")
	if !ok || raw == nil {
		return nil
	}
	want, err := managedEntries(desired)
	if err != nil {
		return fmt.Errorf("desired metadata.managedFields: %w", err)
	}
	have, err := managedEntries(live)
	if err != nil {
		return fmt.Errorf("live metadata.managedFields: %w", err)
	}
	reset := len(want) == 0 || len(want) == 1 && reflect.DeepEqual(want[0], metav1.ManagedFieldsEntry{})
	f := Field{Path: "metadata.managedFields", Effect: Set, Class: "managed"}
	switch {
	case reset && len(have) > 0:
		f.Evidence = "the update carries an empty managedFields entry, which resets them: the server drops live's"
	case reset:
		return nil
	case !decodable(want):
		return nil // the server keeps live's
	case !reflect.DeepEqual(want, have):
		f.Evidence = "the update carries managedFields other than live's: the server stores them in place of live's"
	default:
		return nil
	}
	j.fields = append(j.fields, f)
	return nil
}

// managedEntries are u's managedFields, with their fields as sets (not their JSON spelling).
func managedEntries(u *unstructured.Unstructured) ([]metav1.ManagedFieldsEntry, error) {
	raw, _, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields")
	list, ok := raw.([]any)
	if raw != nil && !ok {
		return nil, fmt.Errorf("a %T, not a list", raw)
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(list))
	for i, x := range list {
		var e metav1.ManagedFieldsEntry
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("entry %d is a %T, not an object", i, x)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &e); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if e.FieldsV1 != nil {
			s := fieldpath.NewSet()
			if err := s.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))); err != nil {
				return nil, fmt.Errorf("entry %d: fieldsV1: %w", i, err)
			}
			// the same set however its JSON is spelt
			b, err := s.ToJSON()
			if err != nil {
				return nil, fmt.Errorf("entry %d: fieldsV1: %w", i, err)
			}
			e.FieldsV1.Raw = b
		}
		out = append(out, e)
	}
	return out, nil
}

// decodable reports whether the server decodes entries (apimachinery's DecodeManagedFields): when
// it does not, it keeps live's managedFields.
func decodable(entries []metav1.ManagedFieldsEntry) bool {
	for _, e := range entries {
		if e.Operation != metav1.ManagedFieldsOperationApply && e.Operation != metav1.ManagedFieldsOperationUpdate ||
			e.APIVersion == "" || e.FieldsType != "FieldsV1" {
			return false
		}
	}
	return true
}
