package verdict

import (
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

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
// change holds after the deploy). Likewise a value the manifests declare that the server drops
// (a kubectl --dry-run creationTimestamp: null, only the manifest holds it) is what kapp's next
// last apply holds: it is set in it, and the rules regenerated after the deploy remove it.
func AfterDeploy(pairs []pair.Pair, rep *classify.Report) ([]pair.Pair, error) {
	dropped := map[pair.Identity][]fielddiff.Path{}
	kept := map[pair.Identity][]declared{} // the values only the manifest holds
	for _, r := range rep.Resources {
		for _, f := range r.Findings {
			switch {
			case f.Class.Ghost() && f.Change == fielddiff.Added:
				dropped[r.ID] = append(dropped[r.ID], f.Path)
			case f.Class.Ghost() && f.Change == fielddiff.Removed:
				desired, _, err := r.Objects()
				if err != nil {
					return nil, err
				}
				if v, ok := f.Path.GetDeclared(desired.Object); ok {
					kept[r.ID] = append(kept[r.ID], declared{f.Path, v})
				}
			}
		}
	}
	out := make([]pair.Pair, len(pairs))
	for i, p := range pairs {
		out[i] = p
		paths := dropped[p.ID]
		if len(paths) == 0 && len(kept[p.ID]) == 0 {
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
		for _, d := range kept[p.ID] {
			changed = put(applied.Object, d.path, d.value) || changed
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
	m, name, ok := parentMap(obj, path)
	if !ok {
		return false
	}
	if _, ok := m[name]; !ok {
		return false
	}
	delete(m, name)
	return true
}

// declared is a value the manifest declares at path.
type declared struct {
	path  fielddiff.Path
	value any
}

// put sets the map field at path in obj to v where obj holds the map and not the field (a list
// item's key fields matched as a manifest declares them); false otherwise.
func put(obj map[string]any, path fielddiff.Path, v any) bool {
	m, name, ok := parentMap(obj, path)
	if !ok {
		return false
	}
	if _, ok := m[name]; ok {
		return false
	}
	m[name] = runtime.DeepCopyJSONValue(v)
	return true
}

// parentMap is the map of obj that holds or would hold the map field at path (list items' key
// fields matched as a manifest declares them), and the field's name; false where path ends in a
// list item or obj holds no map there.
func parentMap(obj map[string]any, path fielddiff.Path) (map[string]any, string, bool) {
	if len(path) == 0 || path[len(path)-1].FieldName == nil {
		return nil, "", false
	}
	parent, ok := path[:len(path)-1].GetDeclared(obj)
	m, isMap := parent.(map[string]any)
	if !ok || !isMap {
		return nil, "", false
	}
	return m, *path[len(path)-1].FieldName, true
}

// Redefaulted is report as it stands after this deploy at the fields the manifests stop declaring
// that the API server defaults anew (classify.Finding.DefaultedTo): each such removal made in Git
// is then a default the live object holds and kapp's last apply lacks, a ghost diff, and the
// fields, written "apps/Deployment shop/web spec.replicas: 1". A rule file that is right for this
// deploy (kapp applies the removal under it: a copy from the live object there would keep the old
// value, hiding it) lacks the copy the deployed object needs; regenerated from the live objects
// captured before the deploy it lacks it still, the live object holding the old value (newcomer14
// N14-2: a pull request removing replicas: 3, defaulted to 1, passed check, and every deploy after
// it showed the defaulted replicas until the rules were regenerated). nil when there is none.
func Redefaulted(report *classify.Report) (*classify.Report, []string, error) {
	rep := *report
	rep.Resources = slices.Clone(rep.Resources)
	var fields []string
	for i, r := range rep.Resources {
		var fs []classify.Finding
		var live load.Object
		for j, f := range r.Findings {
			if f.Class != classify.Pending || f.DefaultedTo == nil {
				continue
			}
			if fs == nil {
				fs = slices.Clone(r.Findings)
				var err error
				if _, live, err = r.Objects(); err != nil {
					return nil, nil, err
				}
			}
			fs[j].Class, fs[j].Live = classify.Defaulted, f.DefaultedTo
			f.Path.Set(live.Object, runtime.DeepCopyJSONValue(f.DefaultedTo))
			fields = append(fields, fmt.Sprintf("%s %s: %s", r.ID, f.Path, shown(f.DefaultedTo)))
		}
		if fs == nil {
			continue
		}
		doc, err := load.NewDoc(live)
		if err != nil {
			return nil, nil, err
		}
		doc.Source, doc.Namespace = r.Live.Source, r.Live.Namespace
		rep.Resources[i].Findings, rep.Resources[i].Live = fs, doc
	}
	if fields == nil {
		return nil, nil, nil
	}
	return &rep, fields, nil
}

// shown is a value as a note writes it: a string as it is, anything else as JSON.
func shown(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	bs, _ := json.Marshal(v)
	return string(bs)
}
