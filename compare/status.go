package compare

// What a write of the object itself does with its status: kept (a status subresource, every
// built-in kind), or written as any other field (a custom resource whose CRD gives none).

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// statusWrite is what an update of a custom resource does with its status.
type statusWrite int

const (
	statusKept    statusWrite = iota + 1 // a status subresource: the update keeps live's status
	statusWritten                        // no status subresource: status is written as any field
	statusPruned                         // no status subresource and the schema prunes status
)

// statusOfVersion is what an update does with status in a version of a CRD (its subresources
// and schema).
func statusOfVersion(version map[string]any) statusWrite {
	if sub, ok, _ := unstructured.NestedFieldNoCopy(version, "subresources", "status"); ok && sub != nil {
		return statusKept
	}
	root, ok, _ := unstructured.NestedMap(version, "schema", "openAPIV3Schema")
	if !ok {
		return statusWritten
	}
	_, hasStatus, _ := unstructured.NestedFieldNoCopy(root, "properties", "status")
	keep, _, _ := unstructured.NestedBool(root, "x-kubernetes-preserve-unknown-fields")
	if !hasStatus && !keep {
		return statusPruned
	}
	return statusWritten
}

// statusWriteOf is what a write of the object itself does with the status of kind gvk: every
// built-in kind with a status has a status subresource, a custom resource's CRD says (0: no CRD
// given).
func (c *Comparer) statusWriteOf(gvk schema.GroupVersionKind) statusWrite {
	if scheme.Scheme.Recognizes(gvk) {
		return statusKept
	}
	return c.statusOf[gvk]
}

// status judges an update's status: a kind with a status subresource keeps live's; a custom
// resource whose CRD has none writes it as any field; without the CRD, which of the two cannot
// be known offline.
func (j *judgement) status(desired, live *unstructured.Unstructured, status statusWrite) {
	gvk := desired.GroupVersionKind()
	d, dok := desired.Object["status"]
	l := live.Object["status"]
	if sameJSON(d, l) {
		return
	}
	f := Field{Path: "status", Class: "unknown"}
	switch status {
	case statusKept, statusPruned:
		return
	case statusWritten:
		f.Effect = Set
		f.Evidence = "the CRD gives " + gvk.Version + " no status subresource: the update writes status as any other field"
		if !dok || d == nil {
			f.Effect = Removed
			f.Evidence = "the CRD gives " + gvk.Version + " no status subresource: the update omits status and the server removes it"
		}
	default:
		f.Effect = Unknown
		f.Evidence = "status differs and, without the CRD of " + gvk.Kind + " (WithCRDs), whether " + gvk.Version + " has a status subresource, which keeps live's status on an update, cannot be known offline"
	}
	j.fields = append(j.fields, f)
}

func sameJSON(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && string(x) == string(y)
}

var statusField = "status"

// applyStatus judges the status an apply declares where the kind has no status subresource (a
// custom resource whose CRD gives it none: the server writes status as any other field), or
// where that is unknown (a custom resource without its CRD): statusDeclared is the status's
// fields desired declares (below status), owned those manager applied. The fields it judges are
// added to seen.
func (j *judgement) applyStatus(desired, live *unstructured.Unstructured, manager string, status statusWrite, statusDeclared, owned, seen *fieldpath.Set) {
	if status != statusWritten && status != 0 {
		return // the server resets status (a status subresource, a built-in kind) or prunes it
	}
	gvk := desired.GroupVersionKind()
	statusOwned := owned.Leaves().WithPrefix(fieldpath.PathElement{FieldName: &statusField})
	var changed []fieldpath.Path
	statusDeclared.Iterate(func(p fieldpath.Path) {
		full := append(fieldpath.Path{{FieldName: &statusField}}, p...)
		d, _ := fielddiff.Path(full).Get(desired.Object)
		l, ok := fielddiff.Path(full).Get(live.Object)
		if !ok || !sameJSON(d, l) {
			changed = append(changed, full)
		}
	})
	if status == 0 {
		// what becomes of the status manager applied is judged here, not as a field it owns
		statusOwned.Iterate(func(p fieldpath.Path) { seen.Insert(append(fieldpath.Path{{FieldName: &statusField}}, p...)) })
		if len(changed) > 0 || !statusDeclared.Equals(statusOwned) {
			j.fields = append(j.fields, Field{Path: "status", Effect: Unknown, Class: "unknown",
				Evidence: "the apply declares a status other than the one " + manager + " applied and, without the CRD of " + gvk.Kind + " (WithCRDs), whether " + gvk.Version + " has a status subresource, which resets status on an apply, cannot be known offline"})
		}
		return
	}
	for _, p := range changed {
		seen.Insert(p)
		j.fields = append(j.fields, Field{Path: fielddiff.Path(p).String(), Effect: Set, Class: "unknown",
			Evidence: "the CRD gives " + gvk.Version + " no status subresource: the apply writes status as any other field"})
	}
}
