package verdict

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// mutations runs the mutation check on the rules in force: a change made in Git to a declared
// value must reach the object kapp applies. kapp matches each rule on the resource as kapp deploy
// prepared it and the earlier rules rebased it (diff/rebased_resource.go: a matcher may match only
// what an earlier rule copied from the live object, a ytt rule act only on it), so whether a rule
// acts is not decided here: every value a rule in force could write on a resource it may match
// (touched) is changed, one at a time, to a value no rule can predict. Where a rule's matchers
// leave it to what kapp matches it on, or a ytt rule may act, kapp's change factory makes the
// object it applies of each changed manifest (verify.Rebased, both bases): where that object does
// not hold the changed value while kapp's built-in rules alone keep it, the change is hidden, and
// kapp's engine says whether it still reports an update (Rewritten: with the rules' value, not
// the manifest's). Elsewhere (rules matched by the resource's identity alone) kapp's engine must
// show each change as an update under both bases (verify.Shown): outside metadata, each change
// the rules rewrite in that object and kapp's built-in rules alone do not. A hidden change is masked where
// the classification found a manager other than the applier owning the field (class controller,
// with its evidence). A rule that writes kapp.k14s.io/noop, kapp.k14s.io/exists or an update
// strategy skip onto the object kapp applies hides every change of the resource
// (appliesNothing): such a resource is hidden as a whole.
//
// Performance: kapp's rebase of a changed manifest (no diff) is the cheaper question, asked where
// the answer is not known; kapp's diffs under both bases run for the values found rewritten. Where
// a resource's rules are matched by its identity alone and none is a ytt rule, each acts on its
// path whatever the other values hold: the resource's values outside metadata (kapp's built-in
// rules match on annotations, and its deploy reads them) are changed together, in one rebase and
// one diff per base (members), each asked about alone only where kapp shows an update; one at a
// time, a resource of N values cost N rebases and diffs of the whole object.
func (v *Verdict) mutations(in Input, configs []*unstructured.Unstructured) error {
	if len(in.Rules) == 0 {
		return nil
	}
	var all, probes []mutation // probes: per resource, the unchanged pair, then each value changed
	seq := 0
	for _, r := range in.Report.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			return err
		}
		t := touched(in.Rules, desired.Unstructured)
		single := !batchable(desired.Unstructured, live.Unstructured)
		if t.annotate {
			probes = append(probes, mutation{r: r, single: single})
		}
		joint := mutation{r: r, single: single}
		for _, p := range t.paths {
			val, _ := p.Get(desired.Object)
			mutated, _ := mutate(val)
			// a draw of the live value tells nothing: a rule copying it from the live object
			// leaves the object kapp applies as the manifest would (one digit: 1 in 9 draws);
			// drawn again, and a value still drawn equal to the live one is asked about alone
			liveVal, inLive := fielddiff.ByKey(desired.Unstructured, p).GetDeclared(live.Object)
			for range 8 {
				if !inLive || !fielddiff.Equal(mutated, liveVal) {
					break
				}
				mutated, _ = mutate(val)
			}
			m := mutation{r: r, path: p, value: mutated, what: fielddiff.ByKey(desired.Unstructured, p).String(), single: single, probed: t.probe,
				controller: controlled(r, desired.Object, p), seq: seq}
			seq++
			if !t.probe {
				v.MutationsRun++ // each judged by kapp's engine
			}
			switch {
			case !t.probe && !p.HasPrefix(fielddiff.FromFields([]string{"metadata"})) && !(inLive && fielddiff.Equal(mutated, liveVal)):
				joint.members = append(joint.members, m)
			case !t.probe:
				all = append(all, m)
			default:
				p.Set(desired.Object, mutated)
				m.key = fielddiff.ByKey(desired.Unstructured, p) // a changed merge key moves the item
				p.Set(desired.Object, val)
				probes = append(probes, m)
			}
		}
		if len(joint.members) > 0 {
			for _, m := range joint.members {
				m.path.Set(desired.Object, m.value)
			}
			for k, m := range joint.members {
				joint.members[k].key = fielddiff.ByKey(desired.Unstructured, m.path)
			}
			probes = append(probes, joint)
		}
	}
	if err := mutatedWithinBudget(in.Rules, probes); err != nil {
		return err
	}
	v.MutationProbes = len(probes)
	withRules, err := rebasedBy(probes, configs)
	if err != nil {
		return err
	}
	var suspects []mutation // what the rules in force rewrite, to be told from kapp's own rules
	var at []int
	for i, m := range probes {
		switch {
		case m.members != nil && withRules[i].failed:
			all = append(all, m.members...) // kapp fails on some value: each is asked about alone
		case !withRules[i].failed && (withRules[i].rewrites != 0 || withRules[i].inert != "" || slices.ContainsFunc(withRules[i].members, func(b uint8) bool { return b != 0 })):
			suspects, at = append(suspects, m), append(at, i)
		}
	}
	builtin, err := rebasedBy(suspects, nil)
	if err != nil {
		return err
	}
	v.MutationProbes += len(suspects)
	var joints []mutation // per resource, the values its rules rewrite and kapp's alone do not, changed together
	for j, m := range suspects {
		rules, alone := withRules[at[j]], builtin[j]
		switch {
		case m.members != nil && alone.failed:
			all = append(all, m.members...)
		case m.members != nil:
			joint := mutation{r: m.r, single: m.single, members: []mutation{}}
			for k, member := range m.members {
				if rules.members[k]&^alone.members[k] != 0 {
					joint.members = append(joint.members, member)
				}
			}
			if len(joint.members) > 0 {
				joints = append(joints, joint)
			}
		case m.path == nil && rules.inert != "" && alone.inert == "":
			desired, _, err := m.r.Objects()
			if err != nil {
				return err
			}
			p := fielddiff.ByKey(desired.Unstructured, fielddiff.FromFields([]string{"metadata", "annotations", rules.inert}))
			h := Hidden{Resource: m.r.ID, Path: p.String(), Whole: true, How: inertHow(rules.inert)}
			h.Rule, h.At = responsible(in.Rules, m.r, p, rules.obj)
			v.Hidden = append(v.Hidden, h)
		case m.path != nil && !alone.failed && rules.rewrites&^alone.rewrites != 0:
			all = append(all, m)
		}
	}
	var verified map[pair.Identity]verify.Result
	if v.Results != nil {
		verified = v.verified(in.Report)
	}
	for _, m := range all {
		if m.probed {
			v.MutationsRun++
		}
	}
	// progress: each value once, when kapp's answer on it is known (the values the rules leave
	// alone in the object kapp applies now)
	done := in.stage("mutation checks", v.MutationsRun)
	tick := func() {
		if done != nil {
			done()
		}
	}
	asked := len(all)
	for _, m := range joints {
		asked += len(m.members)
	}
	for range v.MutationsRun - asked {
		tick()
	}
	// The values a resource's rules rewrite, changed together: where kapp's engine shows no update,
	// none changed alone would show one either (each rule acts on its value whatever the others
	// are), and each is hidden; else each is asked about alone.
	jointShown, err := runMutations(joints, configs, nil, verified)
	if err != nil {
		return err
	}
	v.MutationProbes += len(joints)
	var judged []mutation // with what kapp showed, in the order the values were found
	var shownOf []bool
	for i, m := range joints {
		if jointShown[i] {
			all = append(all, m.members...)
			continue
		}
		for _, member := range m.members {
			judged, shownOf = append(judged, member), append(shownOf, false)
			tick()
		}
	}
	shown, err := runMutations(all, configs, done, verified)
	if err != nil {
		return err
	}
	v.MutationProbes += len(all)
	judged, shownOf = append(judged, all...), append(shownOf, shown...)
	order := make([]int, len(judged))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return judged[a].seq - judged[b].seq })
	for _, i := range order {
		m := judged[i]
		if shownOf[i] && !m.probed { // kapp applies the changed value: the rules leave it alone
			continue
		}
		h := Hidden{Resource: m.r.ID, Path: m.what, Rewritten: shownOf[i]}
		h.Rule, h.At = responsible(in.Rules, m.r, m.path)
		if m.controller {
			v.Masked = append(v.Masked, h)
		} else {
			v.Hidden = append(v.Hidden, h)
		}
	}
	return nil
}

// verified indexes kapp's results on the unmutated pairs, for the mutation check's baselines.
func (v *Verdict) verified(rep *classify.Report) map[pair.Identity]verify.Result {
	out := make(map[pair.Identity]verify.Result, len(v.Results))
	for i, r := range rep.Resources {
		out[r.ID] = v.Results[i]
	}
	return out
}

// asDecoded is obj with its numbers as load decodes them (an integer int64), for a path selecting
// list items by key to find them: kapp reads numbers as float64.
func asDecoded(obj map[string]any) map[string]any {
	var out map[string]any
	bs, err := json.Marshal(obj)
	if err == nil && utiljson.Unmarshal(bs, &out) == nil {
		return out
	}
	return obj
}

// touch is what the rules in force may do to one resource: the scalars it declares that a rule
// could write, by index; probe: whether kapp must say which of them the rules rewrite (a rule may
// act or not depending on more than the resource's identity, or is a ytt overlay, which may write
// anything or keep each value), else each is a rule's for certain and kapp's engine judges it
// directly; annotate: a rule may write an annotation that makes kapp apply nothing
// (appliesNothing).
type touch struct {
	paths           []fielddiff.Path
	probe, annotate bool
}

// touched says what the rules may do to desired. A rule may act on a resource its matchers do not
// rule out by identity (kappmatch.Matcher.ByIdentity); a copy or remove, an exclusion, a label or
// template rule writes only under its paths; additionalLabels only entries of their keys; a ytt
// overlay anything (what a generated one rewrites is known: its hint). A copy from new first
// keeps every value the manifest declares.
func touched(rules []Rule, desired *unstructured.Unstructured) touch {
	var t touch
	all := false
	for _, rule := range rules {
		matches, decided := rule.matcher.ByIdentity(desired)
		if decided && !matches || rule.keepsDeclared {
			continue
		}
		t.probe = t.probe || !decided || rule.ytt != nil
		t.annotate = t.annotate || rule.index >= 0 && (rule.ytt != nil || slices.ContainsFunc(rule.paths, writesInert)) ||
			labelsInert(rule.keys)
		switch {
		case rule.hint != nil:
			for _, p := range rule.hint {
				if val, ok := p.Get(desired.Object); ok {
					if _, can := mutate(val); can {
						t.paths = append(t.paths, byIndex(desired.Object, p))
					}
				}
			}
		case rule.ytt != nil:
			all = true
		case rule.keys != nil:
			for _, p := range declaredUnder(desired.Object, nil) {
				if last := p[len(p)-1]; last.FieldName != nil && rule.keys[*last.FieldName] {
					t.paths = append(t.paths, p)
				}
			}
		default:
			for _, kp := range rule.paths {
				t.paths = append(t.paths, declaredUnder(desired.Object, kp)...)
			}
		}
	}
	if all {
		t.paths = declaredUnder(desired.Object, nil)
	}
	seen := map[string]bool{}
	t.paths = slices.DeleteFunc(t.paths, func(p fielddiff.Path) bool {
		k := p.String()
		dup := seen[k]
		seen[k] = true
		return dup
	})
	return t
}

// writesInert reports whether a rebase rule's path can lead to an annotation that makes kapp
// apply nothing (appliesNothing), or to a map holding it.
func writesInert(kp ctlres.Path) bool {
	for _, key := range []string{kappconv.NoopAnnotation, kappconv.ExistsAnnotation, kappconv.UpdateStrategyAnnotation} {
		if len(resolved(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: ""}}}, kp)) > 0 {
			return true
		}
	}
	return false
}

// labelsInert reports whether additionalLabels of these keys can make kapp apply nothing: kapp
// writes them through every ownership label rule (resources/labeled_resources.go Prepare), into
// metadata.annotations where one's path leads there (appliesNothing).
func labelsInert(keys map[string]bool) bool {
	return keys[kappconv.NoopAnnotation] || keys[kappconv.ExistsAnnotation] || keys[kappconv.UpdateStrategyAnnotation]
}

// rebased is what kapp made of one probe: the bases under which the object kapp applies does
// not hold the probe's changed value (a bit per base of verify.Bases), and, for the unchanged
// pair, the annotation that makes kapp apply nothing to it, with that object. failed: kapp fails
// on the changed value (its deploy would stop there, not hide the change).
type rebased struct {
	rewrites uint8
	members  []uint8 // rewrites of each of a joint probe's members
	inert    string
	obj      map[string]any
	failed   bool
}

// rebasedBy asks kapp's change factory, with configs after its built-in rules, what it makes of
// each probe (verify.Rebased), in the verify calls of runMutations. kapp failing on the unchanged
// pair is an error (kapp's engine reports it on the verification first).
func rebasedBy(probes []mutation, configs []*unstructured.Unstructured) ([]rebased, error) {
	out := make([]rebased, len(probes))
	var mu sync.Mutex
	var failed error
	for _, call := range calls(probes) {
		err := verify.Rebased(len(call), func(i int) (verify.Pair, error) {
			return probes[call[i]].pair()
		}, configs, func(i int, b verify.Base, obj map[string]any, err error) {
			m, r := probes[call[i]], &out[call[i]]
			switch {
			case err != nil && m.path == nil && m.members == nil:
				mu.Lock()
				failed = fmt.Errorf("%s: %w", m.r.ID, err)
				mu.Unlock()
			case err != nil:
				r.failed = true
			case m.members != nil:
				if r.members == nil {
					r.members = make([]uint8, len(m.members))
				}
				decoded := asDecoded(obj)
				for k, member := range m.members {
					if v, ok := member.key.GetDeclared(decoded); !ok || !fielddiff.Equal(v, member.value) {
						r.members[k] |= 1 << slices.Index(verify.Bases(), b)
					}
				}
			case m.path == nil:
				if k := appliesNothing(obj); k != "" && r.inert == "" {
					r.inert, r.obj = k, (&unstructured.Unstructured{Object: obj}).DeepCopy().Object
				}
			default:
				// by key: a rule may reorder a list (an injected sidecar first)
				if v, ok := m.key.GetDeclared(asDecoded(obj)); !ok || !fielddiff.Equal(v, m.value) {
					r.rewrites |= 1 << slices.Index(verify.Bases(), b)
				}
			}
		})
		if err == nil {
			err = failed
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

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
// field at p (by index in obj), or a value holding it: a controller finding at it or above it.
func controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	for _, f := range r.Findings {
		if f.Class != classify.Controller {
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

// mutation is one declared value changed (path nil: the unchanged pair).
type mutation struct {
	r          classify.Resource
	path       fielddiff.Path // by index
	value      any            // the changed value, set on a freshly decoded desired object when its round runs
	what       string         // the field's path by key
	key        fielddiff.Path // the field's path by key once changed (a changed merge key moves its item)
	controller bool           // a manager other than the applier owns the field, with evidence
	single     bool
	// probed: kapp's rebase found the rules rewriting the changed value (else kapp's engine alone
	// judges it: not shown is hidden)
	probed bool
	// members: a resource's values changed together (path nil), where its rules act on each
	// whatever the others are: rules matched by the resource's identity alone, no ytt rule, and no
	// value under metadata (kapp's built-in rules match on annotations, and its deploy reads them)
	members []mutation
	seq     int // the order the value was found in
}

// pair is m's pair for kapp's engine, with its value, or its members' values, changed.
func (m mutation) pair() (verify.Pair, error) {
	p, err := verifyPair(m.r.Pair, m.path, m.value)
	if err != nil {
		return p, err
	}
	for _, member := range m.members {
		member.path.Set(p.Desired.Object, member.value)
	}
	return p, nil
}

// runMutations asks kapp's engine, for each mutation, whether it shows the change under both
// bases (verify.Shown): an update whose diff differs from kapp's diff of the unmutated pair (a
// pair kapp already updates for another field shows the change only in its diff), and returns
// what kapp showed, in all's order. verified holds kapp's results on the unmutated pairs from the
// verification, if any.
//
// Performance: kapp's result on a resource's unmutated pair (the baseline) is taken from the
// verification when it is provably the same question (verify.Result.Alone: the same pair with
// the same configs, and nothing else of the call entered kapp's verdict); only the other
// resources' unmutated pairs are asked about here. The mutations are verified in rounds, one
// verify call per round with at most one mutation per resource (kapp rejects two copies of a
// resource in one deploy), so they run on every core and kapp's Config is built once per round,
// not once per mutation (its cost grows with the resources it matches). A mutation whose
// pair could influence the others in a deploy (versioned resources, kapp config ConfigMaps, a
// live object without kapp's app label) gets a call of its own, as does its baseline. Each
// resource is decoded once to find its mutations and again only while its round is encoded for
// kapp.
func runMutations(all []mutation, configs []*unstructured.Unstructured, done func(), verified map[pair.Identity]verify.Result) ([]bool, error) {
	baseline := map[pair.Identity]verify.Result{}
	var unverified []mutation // one per resource whose unmutated pair kapp is asked about here
	seen := map[pair.Identity]bool{}
	for _, m := range all {
		if seen[m.r.ID] {
			continue
		}
		seen[m.r.ID] = true
		if res, ok := verified[m.r.ID]; ok && res.Alone && !m.single {
			baseline[m.r.ID] = res
			continue
		}
		unverified = append(unverified, mutation{r: m.r, single: m.single})
	}
	for _, call := range calls(unverified) {
		res, _, err := verify.Baselines(len(call), func(i int) (verify.Pair, error) {
			return verifyPair(unverified[call[i]].r.Pair, nil, nil)
		}, configs, nil)
		if err != nil {
			return nil, err
		}
		for i, j := range call {
			baseline[unverified[j].r.ID] = res[i]
		}
	}
	shown := make([]bool, len(all))
	for _, call := range calls(all) {
		res, err := verify.Shown(len(call), func(i int) (verify.Pair, error) {
			return all[call[i]].pair()
		}, func(i int) verify.Result { return baseline[all[call[i]].r.ID] }, configs, done)
		if err != nil {
			return nil, err
		}
		for i, j := range call {
			shown[j] = res[i]
		}
	}
	return shown, nil
}

// calls groups mutations into verify calls: the n-th mutation of each resource in the n-th call
// (one copy of a resource per call), and a call of its own for each single one.
func calls(ms []mutation) [][]int {
	var rounds, singles [][]int
	perResource := map[pair.Identity]int{}
	for i, m := range ms {
		if m.single {
			singles = append(singles, []int{i})
			continue
		}
		n := perResource[m.r.ID]
		perResource[m.r.ID]++
		if n == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[n] = append(rounds[n], i)
	}
	return append(rounds, singles...)
}

// batchable reports whether a mutated pair may share a verify.Verify call with other pairs and
// get the verdict it gets alone: kapp diffs versioned resources together, reads ConfigMaps
// labelled kapp.k14s.io/config as config for the whole deploy, and labels a live object without
// an app label with the app most pairs of the call have.
func batchable(desired, live *unstructured.Unstructured) bool {
	if _, ok := desired.GetAnnotations()[kappconv.Versioned]; ok {
		return false
	}
	if _, ok := desired.GetLabels()[kappconv.ConfigLabel]; ok {
		return false
	}
	return live != nil && live.GetLabels()[kappconv.AppLabel] != ""
}

// Mutate is the mutation check's value generator (mutate) for other appliers' checks: another
// value of v's type and shape, drawn at random; false for a value that is not a scalar.
func Mutate(v any) (any, bool) { return mutate(v) }

// Controlled reports whether r's classification found a manager other than the applier owning
// the field at p (by key, as findings name fields), or a value holding it (controlled).
func Controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	return controlled(r, obj, byIndex(obj, p))
}
