package synth

// Copies into the items of a list without merge keys (an atomic list: RoleBinding subjects,
// LimitRange limits) of defaults the server chooses by the item's own fields.

import (
	"fmt"
	"slices"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// byItem returns the paths of g (as a plain copy writes them, indexKey) through an item of a list
// without merge keys where the server's default depends on the item's own fields: on some
// resource with a finding there, the server's defaulting (classify.Removals) gives the manifest's
// item the live value, and an empty item in its place another value or none. A copy by index
// pairs item i of the manifest with item i of the live object, whichever item each is: once Git
// inserted a ServiceAccount subject first, the copy gave it the User subject's defaulted apiGroup,
// and a Pod limit the Container limit's default, which the API server refuses; and a Container
// limit whose max Git changed kept the default the server had made of the old max (newcomer12
// N12-1, N12-2). Such paths take a ytt rule (Rule.Items) copying into an item only from the live
// item that holds exactly the manifest's item and the values the rule copies. A default the
// server gives every item alike (a port's protocol TCP, a webhook rule's scope) stays a plain
// copy by index: kapp evaluates a ytt rule for every resource it matches, on every deploy.
func (g *group) byItem(matched []classify.Resource) map[string]bool {
	out := map[string]bool{}
	byID := map[pair.Identity]classify.Resource{}
	for _, r := range matched {
		byID[r.ID] = r
	}
	for _, k := range sortedKeys(g.paths) {
		p := g.paths[k]
		item := lastIndex(p)
		if item < 0 || out[indexKey(p)] {
			continue
		}
		for _, id := range sortedIDs(g.at[k]) {
			r, ok := byID[id]
			if !ok {
				continue
			}
			desired, live, err := r.Objects()
			if err == nil && g.itemDependent(desired.Unstructured, live.Object, p, item) {
				out[indexKey(p)] = true
				break
			}
		}
	}
	return out
}

// itemDependent reports whether the server's defaulting gives desired the value live holds at p,
// and a desired whose item at p[:item+1] is empty another value or none there.
func (g *group) itemDependent(desired *unstructured.Unstructured, live map[string]any, p fielddiff.Path, item int) bool {
	lv, ok := p.Get(live)
	if !ok {
		return false
	}
	if v, set, known := g.defaults.Gives(desired, p); !known || !set || !fielddiff.Equal(v, lv) {
		return false // not the server's defaulting of this object (or not known): as before
	}
	emptied := desired.DeepCopy()
	if !p[:item+1].Set(emptied.Object, map[string]any{}) {
		return false
	}
	v, set, known := g.defaults.Gives(emptied, p)
	return known && (!set || !fielddiff.Equal(v, lv))
}

// lastIndex is the position in p of its last step into an item by index (a list without merge
// keys), -1 if none.
func lastIndex(p fielddiff.Path) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Index != nil {
			return i
		}
	}
	return -1
}

// itemRules returns the rules copying the paths of set into the item the live object holds as
// the manifest declares it (Rule.Items): one for each list they go through first, acting only
// on the resources holding something there (a notMatcher of an emptyFieldMatcher). Where a
// manifest of the kind declares a value at such a path, which a copy from the live object would
// put back once Git removed it (declaresAt, as for a plain copy), the rule names the resources
// with a finding there instead of matching the kind.
func (g *group) itemRules(set []fielddiff.Path, matched []classify.Resource, atIndex map[string]map[pair.Identity]bool) []Rule {
	byList := map[string]*Rule{}
	var order []string
	for _, p := range uniqueByIndex(set) {
		first := slices.IndexFunc(p, func(pe fieldpath.PathElement) bool { return pe.FieldName == nil })
		list := p[:first]
		declared := slices.ContainsFunc(matched, func(r classify.Resource) bool {
			desired, _, err := r.Objects()
			return err == nil && g.declaresAt(r, desired.Unstructured, p)
		})
		k := indexKey(list)
		var ids []pair.Identity
		if declared {
			ids = sortedIDs(atIndex[indexKey(p)])
			k += "\x00" + fmt.Sprint(ids)
		}
		r := byList[k]
		if r == nil {
			c := g.rule
			c.Paths, c.Indexed = nil, nil
			kind := g.rule.Matchers[0]
			if len(ids) > 0 {
				kind = names(ids, g.kind)[0] // one kind: one matcher
			}
			e := emptyAt(list)
			c.Matchers = []Matcher{and(kind, Matcher{Not: &Not{Matcher: Matcher{EmptyField: &e}}})}
			r = &c
			byList[k] = r
			order = append(order, k)
		}
		r.Items = append(r.Items, p)
	}
	var out []Rule
	for _, k := range order {
		out = append(out, *byList[k])
	}
	return out
}
