package verdict

import (
	"fmt"
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// endedByDeploy takes out of residual the ghost diffs this deploy itself ends: fields of a keyed
// list's item that Git moved (an item inserted, removed or reordered before it), which the rules'
// copies by index read from the live item at the item's old place. kapp applies the manifest's
// order, so after the deploy the live list holds it: kapp's own rebase is asked about the pair
// whose live list is put in the manifest's order (each item the live one of its key, a new one
// the manifest's), and each field it restores there is ended, a part of the change made in Git
// this deploy applies, under rules right after it. A container inserted before another failed the
// gate as "ghost diffs the deploy does not end", and the advice to regenerate the rules now gave
// rules by key that left the new container's defaults as ghost diffs after the deploy (newcomer15
// N15-4). A field the rules do not restore in the manifest's order either stays residual.
func endedByDeploy(in Input, residual []Residual) (left, ended []Residual, _ error) {
	rep := &classify.Report{Version: in.Report.Version}
	var posts []load.Object
	at := map[pair.Identity]int{} // resource -> its index in rep
	how := make([]string, len(residual))
	for j, r := range residual {
		if len(r.Finding.Path) == 0 || !r.Finding.Class.Ghost() {
			continue
		}
		i := slices.IndexFunc(in.Report.Resources, func(res classify.Resource) bool { return res.ID == r.Resource })
		if i < 0 {
			continue
		}
		desired, live, err := in.Report.Resources[i].Objects()
		if err != nil {
			return nil, nil, err
		}
		list, key, why, ok := movedItem(r.Finding.Path, desired.Object, live.Object)
		if !ok {
			continue
		}
		k, seen := at[r.Resource]
		if !seen {
			res := in.Report.Resources[i]
			res.Findings = nil
			k, at[r.Resource] = len(rep.Resources), len(rep.Resources)
			rep.Resources, posts = append(rep.Resources, res), append(posts, live)
		}
		inManifestOrder(desired.Object, posts[k].Object, list, key)
		rep.Resources[k].Findings = append(rep.Resources[k].Findings, r.Finding)
		how[j] = why
	}
	if len(rep.Resources) == 0 {
		return residual, nil, nil
	}
	for k, post := range posts {
		doc, err := load.NewDoc(post)
		if err != nil {
			return nil, nil, err
		}
		doc.Source, doc.Namespace = rep.Resources[k].Live.Source, rep.Resources[k].Live.Namespace
		rep.Resources[k].Live = doc
	}
	covered, err := kappcover.CoveredBy(rep, in.Configs, in.IncludeUnknown)
	if err != nil {
		return nil, nil, err
	}
	for j, r := range residual {
		if how[j] == "" || !covered[at[r.Resource]][r.Finding.Path.String()] {
			left = append(left, r)
			continue
		}
		r.Finding.Evidence = fmt.Sprintf("%s; a ghost diff this deploy ends: %s, and the rules' copies by index read the live item at its old place; kapp applies the manifest's order, and kapp's engine on the live list in that order finds the rules restore this field: the rules in force are right after the deploy (regenerated now, from live objects captured before it, they would not be); regenerate them, if at all, after the deploy, from a new capture",
			r.Finding.Evidence, how[j])
		ended = append(ended, r)
	}
	return left, ended, nil
}

// movedItem finds the first keyed list's item on p that the manifest and the live object both
// hold at different indexes: the list's path, the item's key, and how it moved.
func movedItem(p fielddiff.Path, desired, live map[string]any) (list fielddiff.Path, key value.FieldList, how string, ok bool) {
	for j, pe := range p {
		if pe.Key == nil {
			continue
		}
		dl, _ := getList(p[:j], desired)
		ll, _ := getList(p[:j], live)
		di, li := slices.IndexFunc(dl, keyed(*pe.Key)), slices.IndexFunc(ll, keyed(*pe.Key))
		if di < 0 || li < 0 || di == li {
			return nil, nil, "", false
		}
		return p[:j], *pe.Key, fmt.Sprintf("Git moved %s from item %d to item %d of the list (an item inserted, removed or reordered before it)", p[:j+1], li, di), true
	}
	return nil, nil, "", false
}

// inManifestOrder puts the list at path of live in the manifest's order (desired's): each item the
// live one with the same key, else the manifest's.
func inManifestOrder(desired, live map[string]any, path fielddiff.Path, key value.FieldList) {
	dl, ok := getList(path, desired)
	ll, ok2 := getList(path, live)
	if !ok || !ok2 {
		return
	}
	out := make([]any, 0, len(dl))
	for _, d := range dl {
		item := d
		if m, isMap := d.(map[string]any); isMap {
			var of value.FieldList
			for _, f := range key {
				if v, has := m[f.Name]; has {
					of = append(of, value.Field{Name: f.Name, Value: value.NewValueInterface(v)})
				}
			}
			if i := slices.IndexFunc(ll, keyed(of)); len(of) > 0 && i >= 0 {
				item = ll[i]
			}
		}
		out = append(out, item)
	}
	path.Set(live, out)
}

// getList is the list at path of obj.
func getList(path fielddiff.Path, obj map[string]any) ([]any, bool) {
	v, ok := path.GetDeclared(obj)
	l, isList := v.([]any)
	return l, ok && isList
}

// keyed matches a list item holding each field of key it holds at key's value (a key field an
// item leaves out matching, as a manifest's port without protocol).
func keyed(key value.FieldList) func(any) bool {
	return func(item any) bool {
		m, ok := item.(map[string]any)
		if !ok {
			return false
		}
		held := false
		for _, f := range key {
			v, has := m[f.Name]
			if !has {
				continue
			}
			if !fielddiff.Equal(v, f.Value.Unstructured()) {
				return false
			}
			held = true
		}
		return held
	}
}
