package verdict

// kapp's rebase of the changed manifests whose answer the rules in force decide (touch.probe):
// which changed values the object kapp applies does not hold.

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// probed asks kapp's rebase, with the rules in force and with kapp's built-in rules alone, about
// each probe: the unchanged pair (an annotation that makes kapp apply nothing: hidden here), a
// value changed alone, a resource's values changed together (members) for kapp's engine to judge
// together (joints), or a batch of values whose rules read each at its own path (members,
// probed). It returns the probed values the rules rewrite and kapp's built-in rules alone do not
// (for kapp's engine to judge each), and the joints: those of a batch among them, which kapp's
// engine judges together first, as a resource's values changed together.
//
// Performance: a batch is one rebase per base for all its values, not one each: a ytt rule is
// evaluated once per rebase, and generate's rewrite rules (quantities, dropped values, stringData)
// each rewrite a few values of many resources. Where kapp fails on a batch, its values are asked
// about alone: kapp may fail on one of them only.
func (v *Verdict) probed(in Input, probes []mutation, configs []*unstructured.Unstructured) (rewritten, joints []mutation, err error) {
	if err := mutatedWithinBudget(in.Rules, withLives(probes)); err != nil {
		return nil, nil, err
	}
	v.MutationProbes += len(withLives(probes))
	withRules, err := rebasedAll(probes, configs)
	if err != nil {
		return nil, nil, err
	}
	var suspects, retry []mutation // what the rules in force rewrite, to be told from kapp's own rules
	var at []int
	for i, m := range probes {
		switch {
		case m.wide && withRules[i].failed:
		case m.members != nil && m.probed && withRules[i].failed:
			retry = append(retry, m.members...)
		case m.members != nil && withRules[i].failed:
			rewritten = append(rewritten, m.members...) // kapp fails on some value: each is asked about alone
		case !withRules[i].failed && (withRules[i].rewrites != 0 || withRules[i].inert != "" || slices.ContainsFunc(withRules[i].members, func(b uint8) bool { return b != 0 })):
			suspects, at = append(suspects, m), append(at, i)
		}
	}
	builtin, err := rebasedAll(suspects, nil)
	if err != nil {
		return nil, nil, err
	}
	v.MutationProbes += len(withLives(suspects))
	for j, m := range suspects {
		rules, alone := withRules[at[j]], builtin[j]
		switch {
		case m.wide && alone.failed:
		case m.members != nil && m.probed && alone.failed:
			retry = append(retry, m.members...)
		case m.members != nil && alone.failed:
			rewritten = append(rewritten, m.members...)
		case m.members != nil && m.wide:
			for k, member := range m.members {
				if rules.members[k]&^alone.members[k] != 0 {
					// kapp's engine judges it as the rebase found it: with the other values changed
					member.lives, member.members = nil, m.members
					rewritten = append(rewritten, member)
				}
			}
		case m.members != nil:
			// kapp's engine judges the values the rules rewrite together first: each rule acts on
			// each whatever the others hold (a batch: touch.together, apartInBatch, touch.readAt)
			joint := mutation{r: m.r, single: m.single, members: []mutation{}, beside: m.beside}
			for k, member := range m.members {
				if rules.members[k]&^alone.members[k] != 0 {
					member.lives = nil // hidden: kapp's diff only says whether it still shows an update, against the live object as captured
					joint.members = append(joint.members, member)
				}
			}
			switch {
			case len(joint.members) == 1 && m.probed:
				rewritten = append(rewritten, joint.members[0])
			case len(joint.members) > 0:
				joints = append(joints, joint)
			}
		case m.path == nil && rules.inert != "" && alone.inert == "":
			desired, _, err := m.r.Objects()
			if err != nil {
				return nil, nil, err
			}
			p := fielddiff.ByKey(desired.Unstructured, fielddiff.FromFields([]string{"metadata", "annotations", rules.inert}))
			h := Hidden{Resource: m.r.ID, Path: p.String(), Whole: true, How: inertHow(rules.inert), Hypothetical: true}
			h.Rule, h.At = newBlame(in).responsible(m.r, p, rules.obj) // once per resource
			v.Hidden = append(v.Hidden, h)
		case m.path != nil && !m.removed && !alone.failed && rules.rewrites&^alone.rewrites != 0:
			m.lives = nil // hidden: kapp's diff only says whether it still shows an update, against the live object as captured
			rewritten = append(rewritten, m)
		}
	}
	if len(retry) > 0 {
		more, moreJoints, err := v.probed(in, retry, configs)
		if err != nil {
			return nil, nil, err
		}
		rewritten, joints = append(rewritten, more...), append(joints, moreJoints...)
	}
	return rewritten, joints, nil
}

// apartInBatch reports whether the value at p (by index) must be changed in a rebase
// of its own rather than in its resource's batch, as its change may change what a rule does with
// another value: under metadata, kapp's built-in rules match on annotations and its deploy reads
// them; a merge key field, or a set's item, moves its item (a generated ytt rule selects items
// by key); a Secret's data key its stringData also declares is written from it (by the server,
// and by a rule folding stringData into data).
func apartInBatch(desired *unstructured.Unstructured, p fielddiff.Path) bool {
	return p.HasPrefix(fielddiff.FromFields([]string{"metadata"})) || movesItem(desired, p)
}

// movesItem reports whether changing the value at p (by index) moves its item, or changes
// another value: a merge key field, a set's item, a Secret's data key its stringData also
// declares (apartInBatch).
func movesItem(desired *unstructured.Unstructured, p fielddiff.Path) bool {
	key := fielddiff.ByKey(desired, p)
	last := key[len(key)-1]
	switch {
	case last.FieldName == nil:
		return last.Index == nil
	case len(key) > 1 && key[len(key)-2].Key != nil:
		for _, f := range *key[len(key)-2].Key {
			if f.Name == *last.FieldName {
				return true
			}
		}
	}
	if desired.GetAPIVersion() == "v1" && desired.GetKind() == "Secret" && len(key) == 2 && key[0].FieldName != nil && *key[0].FieldName == "data" {
		_, both := fielddiff.FromFields([]string{"stringData", *last.FieldName}).Get(desired.Object)
		return both
	}
	return false
}
