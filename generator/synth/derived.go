package synth

// Copies of a field from which the API server derives a field beside it: gated on the manifest
// declaring that field.

import (
	"slices"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// derivedGated splits off the paths of a kind's plain copy from which the API server derives a
// field beside them that a manifest of the kind declares (an alias: a pod spec's deprecated
// serviceAccount, from which the server's defaulting sets serviceAccountName where it is empty,
// k8s.io/kubernetes v1.37.2 pkg/apis/core/v1 defaults.go SetDefaults_PodSpec), each into a rule
// of its own acting only while the object being rebased declares that field (a notMatcher of
// kapp's emptyFieldMatcher on it). Copied from the live object where Git removed the field, the
// alias had the server put the field back, and the removal never took effect (newcomer8 N8-6).
// Where the object declares the field the server sets the alias from it whatever the copy wrote,
// so the gate takes away nothing the copy is there for.
func (g *group) derivedGated(plain *Rule, matched []classify.Resource) []Rule {
	if plain.YTT() || len(plain.Matchers) != 1 || g.defaults == nil {
		return nil
	}
	var out []Rule
	plain.Paths = slices.DeleteFunc(plain.Paths, func(p []string) bool {
		from, ok := g.derivesBeside(p, matched)
		if !ok {
			return false
		}
		r := g.rule
		r.Paths = [][]string{p}
		r.Matchers = []Matcher{and(plain.Matchers[0], Matcher{Not: &Not{Matcher: Matcher{EmptyField: &EmptyField{Path: Keys(from...)}}}})}
		out = append(out, r)
		return true
	})
	return out
}

// derivesBeside returns the field beside p (map keys) that the server's defaulting derives from
// the value at p (classify.Removals.Derived), asking the first resource of matched with a finding
// at p whose manifest holds the map around it: an alias is the kind's, whatever the values.
func (g *group) derivesBeside(p []string, matched []classify.Resource) ([]string, bool) {
	at := g.at[fielddiff.FromFields(p).String()]
	parent := fielddiff.FromFields(p[:len(p)-1])
	for _, r := range matched {
		if !at[r.ID] {
			continue
		}
		desired, err := r.Desired.Object()
		if err != nil {
			continue
		}
		if _, ok := parent.GetDeclared(desired.Object); !ok {
			continue
		}
		if keys := g.defaults.Derived(desired.Unstructured, parent, p[len(p)-1]); len(keys) > 0 {
			return append(slices.Clone(p[:len(p)-1]), keys[0]), true
		}
		return nil, false
	}
	return nil, false
}
