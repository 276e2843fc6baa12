package synth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/parallel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Why plain copies: kapp evaluates a ytt rebase rule by running ytt for every resource it matches,
// under each base, on every deploy. On 1,000 Deployment + HPA pairs (this 2-core machine, kapp
// v0.66.0 engine, both bases) a ytt rule made kapp's diff 5.4x slower (59.8 s vs 11.1 s); the same
// fields as plain copies with {allIndexes: true} paths cost 1.03x. A plain copy pairs item i of the
// new object with item i of the live one, so it is right only where the items line up by index:
// that is checked here on every pair the rule matches, and kapp's engine verifies the rest.

// misfit is why a pair cannot take a plain copy of a rule's paths ("" if it can).
type misfit struct {
	id  pair.Identity
	why string
}

// fitting is, for one set of paths, the resources that cannot take a plain copy of them (with the
// first reason each), and, by path as a plain copy writes it (indexKey), the resources among the
// others whose manifest declares a map or list there, in any item.
type fitting struct {
	misfits  []misfit
	declared map[string]map[pair.Identity]bool
}

// fitPlain checks every resource of rs against each set of paths a plain copy would write:
// through keyed list items by index ({allIndexes: true}), for empty maps (isEmpty) by copying
// the live value, and, where the resource has a finding at the path (needs), for a map or list
// its manifest declares there in another item, which the copy by index would put back from the
// live object once Git removed it. It returns, for each set, the resources that cannot take them,
// with the first reason each, and where the others declare a map or list. Resources are decoded
// on every core, once for all the sets (performance: decoded once per set, synth spent as much
// on decoding as classification does); one that does not decode (a bug) is a misfit of every
// set, so it keeps the ytt rule.
func fitPlain(rs []classify.Resource, sets [][]fielddiff.Path, isEmpty func(fielddiff.Path) bool, needs func(pair.Identity, fielddiff.Path) bool, declares declares) []fitting {
	out := make([]fitting, len(sets))
	if !slices.ContainsFunc(sets, func(s []fielddiff.Path) bool { return len(s) > 0 }) {
		return out
	}
	whys := make([][]string, len(rs))
	decls := make([][][]string, len(rs))
	parallel.Each(len(rs), func() func(int) {
		return func(i int) { whys[i], decls[i] = fits(rs[i], sets, isEmpty, needs, declares) }
	})
	for i, w := range whys {
		for j, why := range w {
			if why != "" {
				out[j].misfits = append(out[j].misfits, misfit{id: rs[i].ID, why: why})
				continue
			}
			for _, k := range decls[i][j] {
				if out[j].declared == nil {
					out[j].declared = map[string]map[pair.Identity]bool{}
				}
				if out[j].declared[k] == nil {
					out[j].declared[k] = map[pair.Identity]bool{}
				}
				out[j].declared[k][rs[i].ID] = true
			}
		}
	}
	return out
}

// fits returns, for each set of paths, why r cannot take a plain copy of them ("" if it can),
// and the paths of the set (indexKey) at which r's manifest declares a map or list.
func fits(r classify.Resource, sets [][]fielddiff.Path, isEmpty func(fielddiff.Path) bool, needs func(pair.Identity, fielddiff.Path) bool, declares declares) ([]string, [][]string) {
	whys := make([]string, len(sets))
	decls := make([][]string, len(sets))
	desired, live, err := r.Objects()
	for j, paths := range sets {
		if len(paths) > 0 && err != nil {
			whys[j] = err.Error()
			continue
		}
		for _, p := range paths {
			var leaf func(d, l any, dok, lok bool) string
			annotations := isEmpty(p) && p.String() == "metadata.annotations"
			switch {
			case annotations:
				leaf = emptyForKapp(classify.RevertedAnnotations(r.Findings)) // kapp's artifact: its rule copies only while none is declared
			case isEmpty(p):
				leaf = emptyOrDeclared
			}
			if whys[j] = lineUp(desired.Object, live.Object, p, 0, leaf); whys[j] != "" {
				break
			}
			if annotations || !declares(r, desired.Unstructured, p) {
				continue
			}
			if needs(r.ID, p) {
				// the copy by index, which this resource needs at another item, would put the
				// declared one back once Git removed it (the mutation check removes it): the
				// ytt rule selects only the items that need it
				whys[j] = fmt.Sprintf("the manifest declares %s in an item, which a copy by index from the live object would put back once Git removed it (the server's defaults would not)", indexKey(p)[1:])
				break
			}
			decls[j] = append(decls[j], indexKey(p))
		}
	}
	return whys, decls
}

// declares reports whether desired declares at p (in any list item the path goes through) a
// value a copy from the live object would put back once Git removed it, where that removal is a
// change: a map or list, or a scalar the server's defaults would not give back; or whether Git
// has removed one there already (r's pending removal).
type declares func(r classify.Resource, desired *unstructured.Unstructured, p fielddiff.Path) bool

// declaresAt is the group's declares: the server's defaulting code (classify.Removals, the
// classifier's) decides each declared scalar.
func (g *group) declaresAt(r classify.Resource, desired *unstructured.Unstructured, p fielddiff.Path) bool {
	if removedInGit(r, p) {
		return true
	}
	var at func(v any, i int, concrete fielddiff.Path) bool
	at = func(v any, i int, concrete fielddiff.Path) bool {
		if i == len(p) {
			switch v.(type) {
			case map[string]any, []any:
				return true
			case nil:
				return false
			}
			return !g.defaults.GivesBack(desired, concrete)
		}
		if pe := p[i]; pe.FieldName != nil {
			m, _ := v.(map[string]any)
			x, ok := m[*pe.FieldName]
			return ok && at(x, i+1, append(concrete, pe))
		}
		l, _ := v.([]any)
		for k := range l {
			if at(l[k], i+1, append(slices.Clip(concrete), fieldpath.PathElement{Index: &k})) {
				return true
			}
		}
		return false
	}
	return at(desired.Object, 0, nil)
}

// removedInGit reports whether r's manifest no longer declares, at p or around it, a value kapp
// last applied (a pending removal): a copy of p from the live object would put that value back,
// so the removal this deploy makes would never be applied. generate, given a pull request's
// manifests dropping a Service's type: NodePort, made the kind's copy of spec.type and then
// refused its own rules as hiding the removal (newcomer6 N6-2).
func removedInGit(r classify.Resource, p fielddiff.Path) bool {
	at := indexKey(p)
	for _, f := range r.Findings {
		if f.Class != classify.Pending || f.Change != fielddiff.Added {
			continue
		}
		k := indexKey(f.Path)
		if k == at || strings.HasPrefix(k, at+".") || strings.HasPrefix(k, at+"[") || strings.HasPrefix(at, k+".") || strings.HasPrefix(at, k+"[") {
			return true
		}
	}
	return false
}

// lineUp walks path p (from element i) through the desired and live values d and l. At every
// list of keyed items each desired item must face, at the same index, a live item with the same
// key (a key field the desired item leaves out is defaulted, e.g. a port's protocol, and is not
// compared); leaf, when not nil, checks the values at the end of the path.
func lineUp(d, l any, p fielddiff.Path, i int, leaf func(d, l any, dok, lok bool) string) string {
	if i == len(p) {
		return ""
	}
	pe := p[i]
	switch {
	case pe.FieldName != nil:
		dm, _ := d.(map[string]any)
		lm, _ := l.(map[string]any)
		dv, dok := dm[*pe.FieldName]
		lv, lok := lm[*pe.FieldName]
		if i == len(p)-1 && leaf != nil {
			return leaf(dv, lv, dok, lok)
		}
		if !dok || !lok {
			return "" // kapp's copy stops where either side lacks the field
		}
		return lineUp(dv, lv, p, i+1, leaf)
	case pe.Key != nil:
		dl, _ := d.([]any)
		ll, _ := l.([]any)
		for j, item := range dl {
			if j >= len(ll) {
				return fmt.Sprintf("%s has %d items live, %d desired", fielddiff.Path(p[:i]), len(ll), len(dl))
			}
			if !sameKey(item, ll[j], *pe.Key) {
				return fmt.Sprintf("item %d of %s is %s live, %s desired", j, fielddiff.Path(p[:i]), keyText(ll[j], *pe.Key), keyText(item, *pe.Key))
			}
			if why := lineUp(item, ll[j], p, i+1, leaf); why != "" {
				return why
			}
		}
		return ""
	case pe.Index != nil:
		// an item of an atomic list, which has no key to compare: the server stores the list as
		// sent, so the items line up wherever both sides hold as many
		dl, _ := d.([]any)
		ll, _ := l.([]any)
		if len(dl) != len(ll) {
			return fmt.Sprintf("%s has %d items live, %d desired", fielddiff.Path(p[:i]), len(ll), len(dl))
		}
		for j := range dl {
			if why := lineUp(dl[j], ll[j], p, i+1, leaf); why != "" {
				return why
			}
		}
		return ""
	}
	return fmt.Sprintf("%s selects a list item by value", p)
}

// emptyOrDeclared: a plain copy of an empty map the server stores copies whatever the live
// object holds there, so the live value must be empty (or the user's value wins anyway).
func emptyOrDeclared(d, l any, dok, lok bool) string {
	if dok || !lok {
		return ""
	}
	if m, ok := l.(map[string]any); ok && len(m) == 0 {
		return ""
	}
	return "a live value where the rule adds an empty map is not empty"
}

// emptyForKapp: the live annotations are empty as kapp reads them, without its identity annotation
// (removed when kapp lists objects) and history annotations (removed by a rule after the copy),
// once kapp's deploy has removed the reverted ones (classify.RevertedAnnotations: the artifact's
// finding counts them gone; the rule's remove takes them before that deploy, as kapp would).
func emptyForKapp(reverted map[string]bool) func(d, l any, dok, lok bool) string {
	return func(d, l any, dok, lok bool) string {
		m, _ := l.(map[string]any)
		for k := range m {
			if k != kappconv.IdentityAnnotation && !slices.Contains(kappconv.HistoryAnnotations(), k) && !reverted[k] {
				return emptyOrDeclared(d, m, dok, lok)
			}
		}
		return ""
	}
}

func sameKey(d, l any, key value.FieldList) bool {
	dm, dok := d.(map[string]any)
	lm, lok := l.(map[string]any)
	if !dok || !lok {
		return false
	}
	found := false
	for _, f := range key {
		dv, ok := dm[f.Name]
		if !ok {
			continue
		}
		found = true
		if lv, ok := lm[f.Name]; !ok || fmt.Sprint(lv) != fmt.Sprint(dv) {
			return false
		}
	}
	return found
}

func keyText(item any, key value.FieldList) string {
	m, _ := item.(map[string]any)
	s := ""
	for _, f := range key {
		if v, ok := m[f.Name]; ok {
			if s != "" {
				s += ","
			}
			s += fmt.Sprintf("%s=%v", f.Name, v)
		}
	}
	if s == "" {
		return "an item without its key"
	}
	return s
}

// byIndex reports whether a plain copy can write p by index: map keys and list items selected
// by key or by index (each written {allIndexes: true}), ending in a map key.
func byIndex(p fielddiff.Path) bool {
	if len(p) == 0 || p[len(p)-1].FieldName == nil {
		return false
	}
	for _, pe := range p {
		if pe.FieldName == nil && pe.Key == nil && pe.Index == nil {
			return false
		}
	}
	return true
}

// uniqueByIndex drops paths a plain copy writes the same way as an earlier one.
func uniqueByIndex(ps []fielddiff.Path) []fielddiff.Path {
	seen := map[string]bool{}
	var out []fielddiff.Path
	for _, p := range ps {
		if k := indexKey(p); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// indexKey is p as a plain copy writes it: keyed paths of different items are one indexed path.
func indexKey(p fielddiff.Path) string {
	s := ""
	for _, pe := range p {
		if pe.FieldName != nil {
			s += "." + *pe.FieldName
		} else {
			s += "[*]"
		}
	}
	return s
}

func byKeyWhy(misfits []misfit) string {
	m := misfits[0]
	s := fmt.Sprintf("a copy by index would be wrong (%s: %s", m.id, m.why)
	if len(misfits) > 1 {
		s += fmt.Sprintf("; %d more resources", len(misfits)-1)
	}
	return s + ")"
}
