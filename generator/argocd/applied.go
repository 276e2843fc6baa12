package argocd

import (
	"bytes"
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// Argo CD's applier: the field manager of its controller's server-side apply, and the annotation
// its client-side apply (kubectl's) writes.
const (
	argoManager = "argocd-controller"
	lastApplied = "kubectl.kubernetes.io/last-applied-configuration"
)

// lastSynced says why the live value at p (by key) is the one Argo CD's last sync applied, so a
// manifest declaring another is a change made in Git since (pending), not on the cluster (drift),
// as kapp.k14s.io/original tells them apart on the kapp target: the last applied configuration
// (client-side apply) holds the live value, or argocd-controller's Apply entry of managedFields
// owns the field (server-side apply: a change on the cluster moves the field to its own manager).
// "" when neither does.
func lastSynced(live *unstructured.Unstructured, p fielddiff.Path) string {
	have, ok := p.Get(live.Object)
	if !ok {
		return ""
	}
	if raw := live.GetAnnotations()[lastApplied]; raw != "" {
		var applied map[string]any
		if json.Unmarshal([]byte(raw), &applied) == nil {
			if v, ok := p.GetDeclared(applied); ok && fielddiff.StoredAs(applied, p, v, have) {
				return "the live value is the one Argo CD last applied (" + lastApplied + ")"
			}
		}
	}
	for _, mf := range live.GetManagedFields() {
		if mf.Manager != argoManager || mf.Operation != "Apply" || mf.FieldsV1 == nil || mf.Subresource != "" {
			continue
		}
		set := fieldpath.NewSet()
		if set.FromJSON(bytes.NewReader(mf.FieldsV1.Raw)) == nil && set.Has(fieldpath.Path(p)) {
			return "the live value is the one Argo CD last applied (" + argoManager + "'s Apply entry of managedFields owns the field)"
		}
	}
	if q, ok := appliedWhole(live, p); ok {
		return "the live value is the one Argo CD last applied (" + argoManager + "'s Apply entry of managedFields owns " + q.String() + " whole)"
	}
	return ""
}

// appliedWhole is the nearest proper ancestor of p (by key) that argocd-controller's Apply entry
// owns as one value, no managedFields entry recording a field below it: structured-merge-diff
// records nothing inside an atomic list (a CRD list without list-type markers) or map, so its
// owner owns every item of it. false when there is none.
func appliedWhole(live *unstructured.Unstructured, p fielddiff.Path) (fielddiff.Path, bool) {
	var argo, all []*fieldpath.Set
	for _, mf := range live.GetManagedFields() {
		set := fieldpath.NewSet()
		if mf.FieldsV1 == nil || set.FromJSON(bytes.NewReader(mf.FieldsV1.Raw)) != nil {
			continue
		}
		all = append(all, set)
		if mf.Manager == argoManager && mf.Operation == "Apply" && mf.Subresource == "" {
			argo = append(argo, set)
		}
	}
	for n := len(p) - 1; n > 0 && len(argo) > 0; n-- {
		q := fieldpath.Path(p[:n])
		for _, s := range all {
			if !below(s, q).Empty() {
				return nil, false // granular here, and so at every ancestor above
			}
		}
		for _, s := range argo {
			if s.Has(q) {
				return fielddiff.Path(q), true
			}
		}
	}
	return nil, false
}

// below is the part of s below p.
func below(s *fieldpath.Set, p fieldpath.Path) *fieldpath.Set {
	for _, pe := range p {
		if s = s.WithPrefix(pe); s.Empty() {
			break
		}
	}
	return s
}

// movedItem says why a difference at p (by key), through a list item the live object does not
// hold or at a list, is a merge key changed in Git (a pending change, as the kapp target reports
// it): the live list holds an item the manifest no longer declares, whose key Argo CD last applied
// (lastSynced), so the manifest names an item anew. "" when it does not.
func movedItem(desired, live *unstructured.Unstructured, p fielddiff.Path) string {
	var list fielddiff.Path
	if v, ok := p.Get(live.Object); ok {
		if _, isList := v.([]any); isList {
			list = p
		}
	}
	for i := len(p) - 1; list == nil && i >= 0; i-- {
		if p[i].Key == nil {
			continue
		}
		if _, held := p[:i+1].Get(live.Object); held {
			return ""
		}
		list = p[:i]
	}
	if list == nil {
		return ""
	}
	at, ok := indexPath(live, list)
	if !ok {
		return ""
	}
	v, _ := list.Get(live.Object)
	items, _ := v.([]any)
	for i := range items {
		item := fielddiff.ByKey(live, with(at, fieldpath.PathElement{Index: &i}))
		last := item[len(item)-1]
		if last.Key == nil {
			return "" // not a list with merge keys
		}
		if _, declared := item.GetDeclared(desired.Object); declared {
			continue
		}
		for _, f := range *last.Key {
			if why := lastSynced(live, with(item, fieldpath.PathElement{FieldName: &f.Name})); why != "" {
				return "the live item " + item.String() + ", which the manifest no longer declares, is the one Argo CD last applied (" +
					strings.TrimPrefix(why, "the live value is the one Argo CD last applied (")
			}
		}
	}
	return ""
}

// indexPath is keyed, a path by key into u's object, by index; false when u does not hold it.
func indexPath(u *unstructured.Unstructured, keyed fielddiff.Path) (fielddiff.Path, bool) {
	var out fielddiff.Path
	for n, pe := range keyed {
		if pe.Key == nil && pe.Value == nil {
			out = append(out, pe)
			continue
		}
		v, _ := out.Get(u.Object)
		items, _ := v.([]any)
		found := false
		for i := range items {
			if fielddiff.ByKey(u, with(out, fieldpath.PathElement{Index: &i})).String() == keyed[:n+1].String() {
				out, found = with(out, fieldpath.PathElement{Index: &i}), true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return out, true
}

// lastAppliedOf is the configuration Argo CD's last client-side sync applied
// (kubectl.kubernetes.io/last-applied-configuration); false when the live object has none that
// reads (a server-side sync records none).
func lastAppliedOf(live *unstructured.Unstructured) (map[string]any, bool) {
	raw := live.GetAnnotations()[lastApplied]
	if raw == "" {
		return nil, false
	}
	var applied map[string]any
	if json.Unmarshal([]byte(raw), &applied) != nil || applied == nil {
		return nil, false
	}
	return applied, true
}

// addedItem says why a difference at p (by key), at a list or through a list item the live
// object does not hold, is an item added in Git (a pending change, as the kapp target reports
// it): the manifest declares an item (by its merge key) that neither the live object nor Argo
// CD's last sync (client-side) holds, so no one removed it from the cluster. "" when it is not,
// or cannot be told.
func addedItem(desired, live *unstructured.Unstructured, p fielddiff.Path) string {
	applied, ok := lastAppliedOf(live)
	if !ok {
		return ""
	}
	var items []fielddiff.Path
	if v, ok := p.Get(desired.Object); ok {
		if l, isList := v.([]any); isList {
			at, ok := indexPath(desired, p)
			for i := range l {
				if ok {
					items = append(items, fielddiff.ByKey(desired, with(at, fieldpath.PathElement{Index: &i})))
				}
			}
		}
	}
	for i := range p {
		if p[i].Key != nil {
			items = append(items, p[:i+1])
		}
	}
	for _, item := range items {
		if last := item[len(item)-1]; last.Key == nil {
			continue // not a list with merge keys
		}
		if _, held := item.Get(live.Object); held {
			continue
		}
		if _, was := item.GetDeclared(applied); was {
			continue // Argo CD applied it: removed on the cluster since
		}
		return "the manifest's item " + item.String() + " is in neither the live object nor Argo CD's last sync (" + lastApplied + ")"
	}
	return ""
}
