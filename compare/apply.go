package compare

// What a server-side apply (WithApply) leaves of the fields the manifest no longer declares: who
// owns them, read from managedFields.

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// apply judges a server-side apply under manager: fields it does not declare stay as they are
// unless manager owned them (then they are removed, or left to their other owners), and the
// fields it declares become manager's in managedFields.
func (j *judgement) apply(res classify.Resource, desired, live *unstructured.Unstructured, manager string, status statusWrite) error {
	owned, entries, err := appliedBy(live, manager)
	if err != nil {
		return err
	}
	others, err := ownedByOthers(live, manager)
	if err != nil {
		return err
	}
	declared, err := fielddiff.Declared(desired)
	if err != nil {
		return err
	}
	statusDeclared := declared.WithPrefix(fieldpath.PathElement{FieldName: &statusField})
	declared = declared.Difference(resetOnApply(declared, status == statusWritten))
	known := len(live.GetManagedFields()) > 0
	if !known {
		j.fields = append(j.fields, Field{Path: "metadata.managedFields", Effect: Unknown, Class: "managed",
			Evidence: "the live object has no managedFields (read from a cache that drops them?): which fields " + manager + " owns, and so what its apply removes, is unknown"})
	}
	seen := fieldpath.NewSet()
	j.applyStatus(desired, live, manager, status, statusDeclared, owned, seen)
	for _, f := range res.Findings {
		if f.KappView {
			continue
		}
		p := fieldpath.Path(f.Path)
		seen.Insert(p)
		if f.Change != fielddiff.Added {
			j.declared(f)
			// a value the server keeps as live holds it (an empty value it drops, a default, a
			// canonical form) is still declared: the apply records manager as its owner
			if last := &j.fields[len(j.fields)-1]; last.Effect == Kept && known && entries > 0 && ownsUnder(declared, p) && !ownsUnder(owned, p) {
				last.Effect, last.Class, last.Owner = Owned, "managed", manager
				last.Evidence = "the server keeps the live value, but " + manager + " does not own the field yet: the apply records it in managedFields; " + last.Evidence
			}
			continue
		}
		switch {
		case !known:
			j.add(f, Unknown, "the apply does not declare it; whether "+manager+" owns it is unknown")
		case ownsUnder(owned, p) && sharedUnder(owned, others, p):
			j.add(f, Owned, manager+" owns it together with another manager and the desired object no longer declares it: the apply gives up "+manager+"'s ownership, the value stays")
		case ownsUnder(owned, p):
			j.add(f, Removed, manager+" owns it and the desired object no longer declares it: the apply removes it")
		default:
			j.add(f, Kept, "the apply does not declare it and "+manager+" does not own it")
		}
	}
	if !known {
		return nil
	}
	// Fields whose values agree but whose ownership the apply changes: managedFields change.
	if entries == 0 && !declared.Empty() {
		j.fields = append(j.fields, Field{Path: "metadata.managedFields", Effect: Owned, Class: "managed", Owner: manager,
			Evidence: manager + " has applied nothing to this object yet: the apply records it as the owner of the " + strconv.Itoa(declared.Size()) + " fields it declares"})
		return nil
	}
	leaves := owned.Leaves()
	declared.Difference(leaves).Iterate(func(p fieldpath.Path) {
		// a field declared whole and owned item by item (a custom resource's list, which the
		// comparison reads atomic) is owned already
		if !hasAncestor(seen, p) && !ownsUnder(owned, p) {
			j.fields = append(j.fields, Field{Path: fielddiff.Path(p).String(), Effect: Owned, Class: "managed", Owner: manager,
				Evidence: "the value agrees, but " + manager + " does not own the field yet: the apply records it in managedFields"})
		}
	})
	leaves.Difference(declared).Iterate(func(p fieldpath.Path) {
		if hasAncestor(seen, p) || ownedAbove(declared, p) {
			return
		}
		f := Field{Path: fielddiff.Path(p).String(), Effect: Removed, Class: "managed", Owner: manager,
			Evidence: manager + " owns it and the desired object no longer declares it: the apply removes it"}
		if others.Has(p) {
			f.Effect = Owned
			f.Evidence = manager + " owns it together with another manager and the desired object no longer declares it: the apply gives up " + manager + "'s ownership, the value stays"
		}
		j.fields = append(j.fields, f)
	})
	return nil
}

// appliedBy is the union of the fields manager applied to the object itself (not to a
// subresource), and how many entries it has.
func appliedBy(live *unstructured.Unstructured, manager string) (*fieldpath.Set, int, error) {
	owned := fieldpath.NewSet()
	n := 0
	for i, e := range live.GetManagedFields() {
		if e.Manager != manager || e.Operation != "Apply" || e.Subresource != "" {
			continue
		}
		n++
		if e.FieldsV1 == nil {
			continue
		}
		s := fieldpath.NewSet()
		if err := s.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))); err != nil {
			return nil, 0, fmt.Errorf("live metadata.managedFields[%d].fieldsV1: %w", i, err)
		}
		owned = owned.Union(s)
	}
	return owned, n, nil
}

// ownedByOthers is the union of the fields every other entry of managedFields owns: a field
// manager stops declaring stays while one of them owns it.
func ownedByOthers(live *unstructured.Unstructured, manager string) (*fieldpath.Set, error) {
	out := fieldpath.NewSet()
	for i, e := range live.GetManagedFields() {
		if e.Manager == manager && e.Operation == "Apply" && e.Subresource == "" || e.FieldsV1 == nil {
			continue
		}
		s := fieldpath.NewSet()
		if err := s.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))); err != nil {
			return nil, fmt.Errorf("live metadata.managedFields[%d].fieldsV1: %w", i, err)
		}
		out = out.Union(s)
	}
	return out, nil
}

// sharedUnder reports whether every field at or below p that owned holds is owned by others too:
// the apply leaves them all in place.
func sharedUnder(owned, others *fieldpath.Set, p fieldpath.Path) bool {
	shared := true
	owned.Leaves().Iterate(func(q fieldpath.Path) {
		if len(q) >= len(p) && q[:len(p)].Equals(p) && !others.Has(q) {
			shared = false
		}
	})
	return shared
}

// resetOnApply is what an apply to the object itself never owns: its status, which the server
// resets (kinds with a status subresource) unless statusWritten, and metadata the server strips
// from managedFields.
func resetOnApply(s *fieldpath.Set, statusWritten bool) *fieldpath.Set {
	out := fieldpath.NewSet()
	s.Iterate(func(p fieldpath.Path) {
		if !statusWritten && len(p) > 0 && p[0].FieldName != nil && *p[0].FieldName == "status" {
			out.Insert(p)
		}
		// metadata holding only what the server strips (a custom resource's name and namespace,
		// read without a schema) is owned by nobody
		if len(p) == 1 && p[0].FieldName != nil && *p[0].FieldName == "metadata" {
			out.Insert(p)
		}
		if len(p) == 2 && p[0].FieldName != nil && *p[0].FieldName == "metadata" && p[1].FieldName != nil {
			switch *p[1].FieldName {
			case "creationTimestamp", "selfLink", "uid", "generation", "managedFields", "resourceVersion":
				out.Insert(p)
			}
		}
	})
	return out
}

// ownsUnder reports whether s holds p or a field below it (a difference may be a subtree).
func ownsUnder(s *fieldpath.Set, p fieldpath.Path) bool {
	if s.Has(p) {
		return true
	}
	for _, pe := range p {
		if s = s.WithPrefix(pe); s.Empty() {
			return false
		}
	}
	return !s.Empty()
}

// hasAncestor reports whether s holds p or one of its ancestors (a difference reported at a
// subtree's root covers the fields below it).
func hasAncestor(s *fieldpath.Set, p fieldpath.Path) bool {
	for i := len(p); i > 0; i-- {
		if s.Has(p[:i]) {
			return true
		}
	}
	return false
}

// ownedAbove reports whether declared holds an ancestor of p as a leaf: a field declared whole
// (an atomic list or map) owns what is below it.
func ownedAbove(declared *fieldpath.Set, p fieldpath.Path) bool {
	for i := len(p) - 1; i > 0; i-- {
		if declared.Has(p[:i]) {
			return true
		}
	}
	return false
}
