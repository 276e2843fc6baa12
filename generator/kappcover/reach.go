package kappcover

// Which fields kapp's rebase rules can read or write of a resource, and which rules can match
// a resource of a given apiVersion and kind at all.

import (
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// reach is what a rebase rule can read or write of a resource: the top-level fields its path
// and its matcher's emptyFieldMatchers start with, or any field (a ytt rule, a path or matcher of
// a shape not known here).
type reach struct {
	matcher ctlres.ResourceMatcher // nil: unknown, it may match anything
	fields  []string
	any     bool
	// readsManaged: its matcher may read metadata.managedFields (an emptyFieldMatcher's path
	// there). A rule's own path never makes it read them for another field: copy and remove
	// rules read and write the values at their path only.
	readsManaged bool
}

func reachOf(m ctlres.ResourceModWithMultiple) reach {
	var r reach
	switch m := m.(type) {
	case ctlres.FieldCopyMod:
		r.matcher = m.ResourceMatcher
		r.path(m.Path)
	case ctlres.FieldRemoveMod:
		r.matcher = m.ResourceMatcher
		r.path(m.Path)
	case yttresmod.OverlayContractV1Mod: // reads both resources whole and may write anything
		r.matcher = m.ResourceMatcher
		r.any = true
	default:
		r.any = true
	}
	if r.matcher != nil {
		r.emptyFields(r.matcher)
	}
	return r
}

// path adds the top-level field a rule's path starts with.
func (r *reach) path(p ctlres.Path) {
	if len(p) == 0 || p[0].MapKey == nil {
		r.any = true
		return
	}
	r.fields = append(r.fields, *p[0].MapKey)
}

// emptyFields adds the fields a matcher reads beyond apiVersion, kind and metadata.
func (r *reach) emptyFields(m ctlres.ResourceMatcher) {
	switch m := m.(type) {
	case ctlres.AnyMatcher:
		for _, m := range m.Matchers {
			r.emptyFields(m)
		}
	case ctlres.AndMatcher:
		for _, m := range m.Matchers {
			r.emptyFields(m)
		}
	case ctlres.NotMatcher:
		r.emptyFields(m.Matcher)
	case ctlres.EmptyFieldMatcher:
		r.path(m.Path)
		r.readsManaged = r.readsManaged || reachesManaged(m.Path)
	case ctlres.AllMatcher, ctlres.APIVersionKindMatcher, ctlres.APIGroupKindMatcher, ctlres.CustomResourceMatcher,
		ctlres.KindNamespaceNameMatcher, ctlres.HasAnnotationMatcher, ctlres.HasNamespaceMatcher:
		// apiVersion, kind and metadata only
	default:
		r.any = true
	}
}

// fields returns the top-level fields kapp's rules can read or write when they rebase desired:
// apiVersion, kind and metadata (which matchers read), and the fields of every rule that may match
// it. A rule whose matcher cannot match the resource by its identity (kappmatch.ByIdentity) never
// runs; none that may run writes apiVersion or kind, else all is true, as it is when a rule that
// may run reaches any field.
// readsManaged is true when such a rule's matcher may read metadata.managedFields.
func (r Rebaser) fields(desired *unstructured.Unstructured) (fields map[string]bool, all, readsManaged bool) {
	fields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}
	id := kappmatch.IdentityOf(desired)
	for _, m := range r.reach {
		if m.matcher != nil {
			if matches, decided := id.Decide(m.matcher); decided && !matches {
				continue
			}
		}
		if m.matcher == nil || m.any {
			return nil, true, true
		}
		for _, f := range m.fields {
			if f == "apiVersion" || f == "kind" {
				return nil, true, true
			}
			fields[f] = true
		}
		readsManaged = readsManaged || m.readsManaged
	}
	return fields, false, readsManaged
}

// reachesManaged reports whether a kapp path may lead into metadata.managedFields.
func reachesManaged(p ctlres.Path) bool {
	if len(p) == 0 || p[0].MapKey == nil {
		return true
	}
	if *p[0].MapKey != "metadata" {
		return false
	}
	return len(p) == 1 || p[1].MapKey == nil || *p[1].MapKey == "managedFields"
}

// asksManaged reports whether a path of ps is metadata.managedFields, a field in it, or a field
// holding it.
func asksManaged(ps []fielddiff.Path) bool {
	for _, p := range ps {
		if len(p) == 0 || p[0].FieldName == nil || *p[0].FieldName != "metadata" {
			continue
		}
		if len(p) == 1 || p[1].FieldName == nil || *p[1].FieldName == "managedFields" {
			return true
		}
	}
	return false
}
