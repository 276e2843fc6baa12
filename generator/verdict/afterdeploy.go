package verdict

import (
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// AfterDeploy makes the deployed state's pairs (each live object with what kapp last applied as
// its desired side) hold what this deploy leaves of the fields the manifests stopped declaring
// that the cluster sets again: each ghost diff of rep (this check's classification: only the live
// object holds the field, the server, an admission step or a controller set it) whose path kapp's
// last apply declared is dropped from it. kapp's next last apply lacks such a field and the live
// object keeps it (a dnsPolicy: ClusterFirst or a port's protocol: TCP removed from the manifest is
// defaulted again), so the rules regenerated after the deploy copy it: rules up to date with what
// kapp last applied, which did not need to, are stale (newcomer5 F2's principle: stale when the
// change holds after the deploy).
func AfterDeploy(pairs []pair.Pair, rep *classify.Report) ([]pair.Pair, error) {
	dropped := map[pair.Identity][]fielddiff.Path{}
	for _, r := range rep.Resources {
		for _, f := range r.Findings {
			if f.Class.Ghost() && f.Change == fielddiff.Added {
				dropped[r.ID] = append(dropped[r.ID], f.Path)
			}
		}
	}
	out := make([]pair.Pair, len(pairs))
	for i, p := range pairs {
		out[i] = p
		paths := dropped[p.ID]
		if len(paths) == 0 {
			continue
		}
		applied, err := p.Desired.Object()
		if err != nil {
			return nil, err
		}
		changed := false
		for _, path := range paths {
			changed = drop(applied.Object, path) || changed
		}
		if !changed {
			continue
		}
		doc, err := load.NewDoc(applied)
		if err != nil {
			return nil, err
		}
		doc.Source, doc.Namespace = p.Desired.Source, p.Desired.Namespace
		out[i].Desired = doc
	}
	return out, nil
}

// drop removes the map field at path from obj (a list item's key fields matched as a manifest
// declares them); false when obj does not hold it.
func drop(obj map[string]any, path fielddiff.Path) bool {
	if len(path) == 0 || path[len(path)-1].FieldName == nil {
		return false
	}
	parent, ok := path[:len(path)-1].GetDeclared(obj)
	m, isMap := parent.(map[string]any)
	if !ok || !isMap {
		return false
	}
	name := *path[len(path)-1].FieldName
	if _, ok := m[name]; !ok {
		return false
	}
	delete(m, name)
	return true
}
