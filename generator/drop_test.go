package generator

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
)

// A declared empty value the server drops (the CRD's `required: []`, which the live object lacks)
// gets a remove rule, no ytt, that removes it only while it is empty: a value declared in Git at
// that path (`required: [size]`) is still shown by kapp's engine under both bases. The same remove
// rule without its emptyFieldMatcher hides that change under both bases, so this can fail.
func TestDroppedEmptyValueRemovedOnlyWhileEmpty(t *testing.T) {
	in := Inputs{Desired: []string{"../fixtures/crd-dropped-values/desired.yaml"}, Live: []string{"../fixtures/crd-dropped-values/live.yaml"}}
	g, err := Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Verification; !v.OK() || v.KeptPairs != v.GhostPairs || len(g.Set.Pairs) != 1 {
		t.Fatalf("verification failed: %s", v.Summary())
	}
	var drop *synth.Rule
	for i, r := range g.Rules {
		for _, rw := range r.Rewrites {
			if rw.Path.String() == "spec.versions[0].schema.openAPIV3Schema.properties.spec.required" {
				t.Errorf("required: [] still rewritten by a ytt rule")
			}
		}
		if r.Drop != nil {
			drop = &g.Rules[i]
		}
	}
	if drop == nil || drop.Drop.String() != "spec.versions[0].schema.openAPIV3Schema.properties.spec.required" {
		t.Fatalf("want the remove rule of required: %+v", drop)
	}
	shown := func(rules []synth.Rule) map[verify.Base]verify.Op {
		res, err := verify.VerifyEach(1, func(int) (verify.Pair, error) {
			d, l, err := g.Set.Pairs[0].Objects()
			if err == nil && !drop.Drop.Set(d.Object, []any{"size"}) {
				t.Fatal("cannot declare required: [size]")
			}
			return verify.Pair{Desired: d.Unstructured, Live: l.Unstructured}, err
		}, []*unstructured.Unstructured{configOf(t, rules).Unstructured}, nil)
		if err != nil || len(res[0].Op) != len(verify.Bases()) {
			t.Fatalf("%v: %+v", err, res)
		}
		return res[0].Op
	}
	for base, op := range shown(g.Rules) {
		if op != verify.OpUpdate {
			t.Errorf("required: [size] in Git, %s base: kapp %s, want update", base, op)
		}
	}
	unguarded := append([]synth.Rule{}, g.Rules...)
	for i := range unguarded {
		if unguarded[i].Drop != nil {
			and := drop.Matchers[0].And.Matchers
			unguarded[i].Matchers = []synth.Matcher{{And: &synth.Matchers{Matchers: and[:len(and)-1]}}} // without the emptyFieldMatcher
		}
	}
	for base, op := range shown(unguarded) {
		if op != verify.OpKeep {
			t.Errorf("the remove rule without its emptyFieldMatcher, %s base: kapp %s; the check above cannot fail", base, op)
		}
	}
}

// A declared empty value the server stores as null (a ClusterRole's `rules: []`, live `rules:
// null`) stays a ytt rewrite: removed instead, kapp's engine shows the live object's null as
// removed under the live base.
func TestEmptyValueStoredAsNullIsNoRemoveRule(t *testing.T) {
	in := Inputs{Desired: []string{"../fixtures/aggregated-clusterrole/desired.yaml"}, Live: []string{"../fixtures/aggregated-clusterrole/live.yaml"}}
	g, err := Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Verification; !v.OK() || v.KeptPairs != v.GhostPairs {
		t.Fatalf("verification failed: %s", v.Summary())
	}
	var removed []synth.Rule
	rewritten := false
	for _, r := range g.Rules {
		for _, rw := range r.Rewrites {
			if rw.Path.String() == "rules" {
				rewritten = true
				r.Rewrites = nil
				r.Drop = rw.Path
				r.Matchers = []synth.Matcher{{And: &synth.Matchers{Matchers: append(r.Matchers, synth.Matcher{EmptyField: &synth.EmptyField{Path: synth.Keys("rules")}})}}}
			}
		}
		removed = append(removed, r)
	}
	if !rewritten {
		t.Fatal("want the ytt rewrite of rules: [] stored as null")
	}
	i := slices.IndexFunc(g.Set.Pairs, func(p pair.Pair) bool { return p.ID.Name == "rebasegen-aggregated-clusterrole-empty" })
	if i < 0 {
		t.Fatal("the ClusterRole declaring rules: [] is missing")
	}
	res, err := verify.VerifyEach(1, func(int) (verify.Pair, error) {
		d, l, err := g.Set.Pairs[i].Objects()
		return verify.Pair{Desired: d.Unstructured, Live: l.Unstructured}, err
	}, []*unstructured.Unstructured{configOf(t, removed).Unstructured}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if op := res[0].Op[verify.Live]; op != verify.OpUpdate {
		t.Errorf("rules: [] removed instead of rewritten, live base: kapp %s, want update (the live null shown as removed)", op)
	}
}
