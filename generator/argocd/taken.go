package argocd

// What the ignores take from a batch's manifest. A JSON pointer by index, or a jq expression
// selecting by any value (an item's name, a value another change of the batch changes), takes
// other fields once the batch's changes are made: a change made beside another would then be
// judged under ignores that made alone it is not. A batch is settled only where Argo CD's ignore
// normalizer takes from the changed manifest the fields it takes from the manifest, but in the
// changes' own items (a removed field, an item renamed): there the ignores act on each change as
// on the change made alone.

import (
	"slices"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/diff"
	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// ignorer is Argo CD's ignore normalizer for s (its JSON pointers and jq expressions, the
// Application's and argocd-cm's), nil when no entry of s has one.
func (s Settings) ignorer() (diff.Normalizer, error) {
	some := false
	for _, ig := range s.Ignores {
		some = some || len(ig.JSONPointers)+len(ig.JQPathExpressions) > 0
	}
	for _, o := range s.Overrides {
		some = some || len(o.IgnoreDifferences.JSONPointers)+len(o.IgnoreDifferences.JQPathExpressions) > 0
	}
	if !some {
		return nil, nil
	}
	return normalizers.NewIgnoreNormalizer(s.Ignores, s.Overrides, normalizers.IgnoreNormalizerOpts{JQExecutionTimeout: judgedJQTimeout})
}

// taken are the fields (by key) of u that n, s's ignorer, takes from it: in the jq child where an
// expression of s applies to u.
func (s Settings) taken(n diff.Normalizer, u *unstructured.Unstructured) (map[string]fielddiff.Path, error) {
	left := u.DeepCopy()
	if s.inChild(u) {
		req, err := s.request(opNormalize, u, nil)
		if err != nil {
			return nil, err
		}
		res, err := s.call(req, u)
		if err != nil {
			return nil, err
		}
		if left, err = decodeObject(res.Object); err != nil {
			return nil, err
		}
	} else if err := n.Normalize(left); err != nil {
		return nil, err
	}
	kept := map[string]bool{}
	for _, p := range declared(left.Object, nil) {
		kept[fielddiff.ByKey(left, p).String()] = true
	}
	out := map[string]fielddiff.Path{}
	for _, p := range declared(u.Object, nil) {
		keyed := fielddiff.ByKey(u, p)
		if k := keyed.String(); !kept[k] {
			out[k] = keyed
		}
	}
	return out, nil
}

// takesAlike reports whether n, s's ignorer, takes the same fields from mut, desired with changes made, as
// from desired, but in the changes' own items.
func (s Settings) takesAlike(n diff.Normalizer, desired, mut *unstructured.Unstructured, changes []change) (bool, error) {
	before, err := s.taken(n, desired)
	if err != nil {
		return false, err
	}
	after, err := s.taken(n, mut)
	if err != nil {
		return false, err
	}
	var own []fielddiff.Path // the changes' items, by key before and after the change
	for _, c := range changes {
		switch {
		case c.removal:
			own = append(own, c.read)
		case batchOf(fielddiff.ByKey(desired, c.at)) > 0:
			own = append(own, item(fielddiff.ByKey(desired, c.at)), item(c.read))
		}
	}
	alike := func(a, b map[string]fielddiff.Path) bool {
		for k, p := range a {
			if _, both := b[k]; !both && !slices.ContainsFunc(own, func(o fielddiff.Path) bool { return p.HasPrefix(o) }) {
				return false
			}
		}
		return true
	}
	return alike(before, after) && alike(after, before), nil
}

// item is the list item an identity change at keyed (a merge key's field, or a set's value)
// names.
func item(keyed fielddiff.Path) fielddiff.Path {
	if keyed[len(keyed)-1].Value != nil {
		return keyed
	}
	return keyed[:len(keyed)-1]
}
