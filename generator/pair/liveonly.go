package pair

import (
	"slices"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// addUnpaired sorts the live objects no desired object pairs with into those kapp deletes on
// deploy (Deleted) and the others (LiveOnly). kapp deletes what it lists as the app's, labelled
// with the app's kapp.k14s.io/app value (the paired live objects carry it), and created itself:
// a labelled object whose kapp.k14s.io/identity annotation does not name it is transient to
// kapp, a controller's (the Endpoints copying a Service's labels, a StatefulSet's PVCs), which
// kapp never deletes (resources/identified_resources_list.go, diff/change.go IsIgnored). The
// app's labels are also read from switched: live objects a desired one replaces under another name
// (kapp.k14s.io/versioned added or removed in Git), as nothing else may pair.
func (s *Set) addUnpaired(live, switched []load.Doc) error {
	if len(live) == 0 {
		return nil
	}
	apps := map[string]bool{}
	for _, p := range s.Pairs {
		o, err := p.Live.Object()
		if err != nil {
			return err
		}
		if v := o.GetLabels()[kappconv.AppLabel]; v != "" {
			apps[v] = true
		}
	}
	// a live object whose manifest now declares another namespace (or the Package's intoNs or
	// mapNs puts elsewhere) is the app's too: when every object moves, nothing pairs, and kapp
	// still deletes the old ones (newcomer6 N6-5)
	moved := map[string]bool{}
	for _, c := range s.Created {
		if ns, _, _ := c.Field("metadata", "namespace"); ns != nil && ns != "" || s.Deploy.Places() {
			moved[c.GroupKind().String()+"/"+c.Name] = true
		}
	}
	for i, d := range slices.Concat(switched, live) {
		if i >= len(switched) && (d.Namespace == "" || !moved[d.GroupKind().String()+"/"+d.Name]) {
			continue
		}
		o, err := d.Object()
		if err != nil {
			return err
		}
		if v := o.GetLabels()[kappconv.AppLabel]; v != "" {
			apps[v] = true
		}
	}
	for _, d := range live {
		o, err := d.Object()
		if err != nil {
			return err
		}
		key := kappconv.ResourceKey(o.GetNamespace(), d.GroupKind().Group, d.Kind, d.Name)
		if apps[o.GetLabels()[kappconv.AppLabel]] && kappconv.CreatedByKapp(o.GetAnnotations()[kappconv.IdentityAnnotation], key) {
			s.Deleted = append(s.Deleted, d)
		} else {
			s.LiveOnly = append(s.LiveOnly, d)
		}
	}
	return nil
}
