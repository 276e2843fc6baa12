package synth

// Copies of defaults the API server chooses by what else the object holds.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
	"github.com/rebasegen/rebasegen/rulesets"
)

// dependentGated returns r, without the paths it splits off into rules of their own for a default
// the server chooses by whether other fields are empty (classify.Finding.DependsOn,
// rulesets/dependent.yaml): each acts only while every such field is as empty in the manifest as
// on the resources whose live value it copies (kapp's emptyFieldMatcher, or a notMatcher of it).
// A NetworkPolicy without policyTypes is defaulted [Ingress] while it has no egress rule, and
// [Ingress, Egress] with one: the kind's copy of [Ingress] was what kapp applied once Git added
// egress rules, which the policy then did not enforce (newcomer10 N10-8). Where the resources
// needing the copy differ in those fields, each state's rule also names its resources: the
// kind's copy gated on one state would give a resource Git moves into it the other's default.
func dependentGated(r Rule, matched []classify.Resource) []Rule {
	if r.YTT() || len(r.Matchers) != 1 || len(r.Paths) == 0 {
		return []Rule{r}
	}
	kms, err := KappMatchers(r.Matchers)
	if err != nil {
		return []Rule{r}
	}
	rm, _ := kappmatch.New(kms)
	byKey := map[string]*Rule{}
	var order []string
	r.Paths = slices.DeleteFunc(slices.Clone(r.Paths), func(p []string) bool {
		dep, needing := dependents(fielddiff.FromFields(p), matched)
		if dep == nil {
			return false
		}
		states, ok := statesOf(dep, needing, rm)
		if !ok || len(states) == 0 {
			return false // a manifest does not decode (a bug) or r matches none: r stays as it was
		}
		for _, st := range slices.Sorted(maps.Keys(states)) {
			var ids []pair.Identity
			if len(states) > 1 {
				ids = states[st]
			}
			k := st + fmt.Sprint(ids)
			if byKey[k] == nil {
				s := stateRule(r, dep, st, ids)
				byKey[k] = &s
				order = append(order, k)
			}
			byKey[k].Paths = append(byKey[k].Paths, p)
		}
		return true
	})
	out := []Rule{r}
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}

// statesOf groups the resources of needing that rm matches by the emptiness of dep's fields in
// their manifests, kapp's emptyFieldMatcher on each: one character a field, 1 empty, 0 not. ok is
// false where a manifest does not decode.
func statesOf(dep *rulesets.Dependent, needing []classify.Resource, rm kappmatch.Matcher) (map[string][]pair.Identity, bool) {
	var empties []kappmatch.Matcher
	for _, e := range dep.Empty {
		kms, err := KappMatchers([]Matcher{{EmptyField: &EmptyField{Path: Keys(strings.Split(e, ".")...)}}})
		if err != nil {
			return nil, false
		}
		m, _ := kappmatch.New(kms)
		empties = append(empties, m)
	}
	states := map[string][]pair.Identity{}
	for _, res := range needing {
		obj, err := res.Desired.Object()
		if err != nil {
			return nil, false
		}
		if !rm.MatchesObject(obj.Unstructured) {
			continue
		}
		k := ""
		for _, m := range empties {
			k += map[bool]string{true: "1", false: "0"}[m.MatchesObject(obj.Unstructured)]
		}
		states[k] = append(states[k], res.ID)
	}
	return states, true
}

// stateRule is r for dep's fields in state st (statesOf), without paths: r's matcher and, for each
// field, kapp's emptyFieldMatcher where it is empty in st, a notMatcher of it where not; naming
// ids, where given.
func stateRule(r Rule, dep *rulesets.Dependent, st string, ids []pair.Identity) Rule {
	ms := []Matcher{r.Matchers[0]}
	switch len(ids) {
	case 0:
	case 1:
		ms = append(ms, nameOf(ids[0]))
	default:
		var each []Matcher
		for _, id := range ids {
			each = append(each, nameOf(id))
		}
		ms = append(ms, Matcher{Any: &Matchers{Matchers: each}})
	}
	var while []string
	for i, e := range dep.Empty {
		empty := Matcher{EmptyField: &EmptyField{Path: Keys(strings.Split(e, ".")...)}}
		if st[i] == '1' {
			ms, while = append(ms, empty), append(while, e+" is empty")
		} else {
			ms, while = append(ms, Matcher{Not: &Not{Matcher: empty}}), append(while, e+" is not empty")
		}
	}
	c := r
	c.Paths, c.Indexed, c.Emptied, c.RemoveMatchers, c.Owned = nil, nil, nil, nil, nil
	c.Matchers = []Matcher{and(ms...)}
	c.While = fmt.Sprintf("%s: the API server's default depends on it (rulesets: %s)", strings.Join(while, " and "), dep.Source)
	return c
}

// dependents returns the dependent default at p (by index) and the resources of matched with a
// finding there that has one; nil where none has.
func dependents(p fielddiff.Path, matched []classify.Resource) (*rulesets.Dependent, []classify.Resource) {
	k := indexKey(p)
	var dep *rulesets.Dependent
	var out []classify.Resource
	for _, res := range matched {
		for _, f := range res.Findings {
			if f.DependsOn != nil && (indexKey(f.Path) == k || f.Whole != nil && indexKey(f.Whole) == k) {
				dep = f.DependsOn
				out = append(out, res)
				break
			}
		}
	}
	return dep, out
}
