package verdict

// The rules a hidden change is blamed on, and the owners that mask it.

import (
	"slices"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// responsible names the rules in force that may hide the change at p (by key) on r: those
// matching r whose paths reach p or lie under it, in the desired or the live object (or in objs:
// the object kapp applies); additional labels of p's key; ytt rules matching r (an overlay can
// write anything). kapp matches a rule on the resource as the earlier rules rebased it, which the
// manifest need not show: when no rule matching the manifest reaches p, those reaching it whatever
// their matchers are named. A diffAgainstLastAppliedFieldExclusionRules rule changes nothing kapp
// applies (it decides whether kapp diffs against its last-applied copy) and is never named. It returns their description and where the first is written; zero
// when none does (kapp's rules together).
func responsible(rules []Rule, r classify.Resource, p fielddiff.Path, objs ...map[string]any) (string, RuleAt) {
	desired, live, err := r.Objects()
	if err != nil {
		return "", RuleAt{}
	}
	objs = append([]map[string]any{desired.Object, live.Object}, objs...)
	var names []string
	var at RuleAt
	for _, matched := range []bool{true, false} {
		for _, rule := range rules {
			if matched && !rule.Matches(desired.Unstructured) || rule.lastAppliedCheck || !rule.reaches(p, objs...) {
				continue
			}
			if len(names) == 0 {
				at = rule.At
			}
			names = append(names, rule.At.String()+" ("+rule.Describe()+")")
		}
		if len(names) > 0 {
			return strings.Join(names, "; "), at
		}
	}
	return "the rules in force together (kapp's built-in rules alone apply the change)", RuleAt{}
}

// hiders are rules without those that write want at p's key: a Config's additional labels of
// that value, an ownership or label scoping rule where p is kapp's own label. They make the change
// kapp applies (a label added in Git through a Config), they do not hide it.
func hiders(rules []Rule, p fielddiff.Path, want any) []Rule {
	key := p[len(p)-1].FieldName
	if key == nil {
		return rules
	}
	return slices.DeleteFunc(slices.Clone(rules), func(rule Rule) bool {
		v, ok := rule.wrote[*key]
		return ok && fielddiff.Equal(v, want) || rule.kappLabels && strings.HasPrefix(*key, kappconv.Prefix)
	})
}

// reaches reports whether the rule can act on the field at p (by key) of obj or live.
func (c Rule) reaches(p fielddiff.Path, objs ...map[string]any) bool {
	if c.ytt != nil {
		return true
	}
	if c.keys != nil {
		last := p[len(p)-1]
		return last.FieldName != nil && c.keys[*last.FieldName]
	}
	for _, obj := range objs {
		at := byIndex(obj, p)
		for _, kp := range c.paths {
			for _, q := range resolved(obj, kp) {
				if at.HasPrefix(q) || q.HasPrefix(at) {
					return true
				}
			}
		}
	}
	return false
}

// controlled reports whether classification found a manager other than the applier owning the
// field at p (by index in obj), or a value holding it: a controller finding at it or above it,
// or a change made in Git to a value a controller rewrote (pending, its owner named), whose
// value from Git the check of changes made in Git judges (gitChangesRewritten).
func controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	for _, f := range r.Findings {
		if f.Class != classify.Controller && (f.Class != classify.Pending || f.Owner == "") {
			continue
		}
		for _, q := range []fielddiff.Path{f.Path, f.Whole} {
			if q != nil && p.HasPrefix(byIndex(obj, q)) {
				return true
			}
		}
	}
	return false
}

// byIndex rewrites list items selected by key or value into their index in obj, as kapp's paths
// and declaredUnder address them.
func byIndex(obj map[string]any, p fielddiff.Path) fielddiff.Path {
	x := "x"
	step := func(cur any, pe fieldpath.PathElement) (any, bool) { // Get from any value, not only a map
		return fielddiff.Path{{FieldName: &x}, pe}.Get(map[string]any{x: cur})
	}
	out := make(fielddiff.Path, 0, len(p))
	var cur any = obj
	for _, pe := range p {
		if l, ok := cur.([]any); ok && pe.Index == nil {
			i := slices.IndexFunc(l, func(item any) bool {
				_, found := step([]any{item}, pe)
				return found
			})
			if i < 0 {
				return p // not in the desired object: nothing declared there
			}
			pe = fieldpath.PathElement{Index: &i}
		}
		out = append(out, pe)
		cur, _ = step(cur, pe)
	}
	return out
}

// Controlled reports whether r's classification found a manager other than the applier owning
// the field at p (by key, as findings name fields), or a value holding it (controlled).
func Controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	return controlled(r, obj, byIndex(obj, p))
}
