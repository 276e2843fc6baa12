package verdict

import (
	"encoding/json"
	"slices"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
)

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
// (verify.AppliesNothing): such a resource is hidden as a whole.
//
// Performance: kapp's rebase of a changed manifest (no diff) is the cheaper question, asked where
// the answer is not known; kapp's diffs under both bases run for the values found rewritten. Where
// a resource's rules are matched by its identity alone and none is a ytt rule, each acts on its
// path whatever the other values hold: the resource's values outside metadata (kapp's built-in
// rules match on annotations, and its deploy reads them), and the annotations and labels only
// matchers read (entryReads.shared), are changed together, in one rebase and
// one diff per base (members), each asked about alone only where kapp shows an update; one at a
// time, a resource of N values cost N rebases and diffs of the whole object. Where kapp's rebase
// must say which values the rules rewrite, they are rebased together as far as no value's change
// can change what a rule does with another (probed).
func (v *Verdict) mutations(in Input, configs []*unstructured.Unstructured) error {
	if len(in.Rules) == 0 {
		return nil
	}
	var all, probes []mutation // probes: per resource, the unchanged pair, then each value changed
	var removals []mutation    // the removals kapp's rebase judges, alone or together (members)
	defaults, err := classify.NewRemovals(in.Report)
	if err != nil {
		return err
	}
	var verified map[pair.Identity]verify.Result
	if v.Results != nil {
		verified = v.verified(in.Report)
	}
	seq := 0
	for _, r := range in.Report.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			return err
		}
		t := touched(in.Rules, desired.Unstructured, matchedAs(desired.Unstructured, live.Unstructured), defaults)
		beside := v.beside[r.ID]
		reads := readsOf(desired.Unstructured, t.readsAt)
		single := !batchable(desired.Unstructured, live.Unstructured)
		lives := liveVariants(t, desired.Object, live.Object)
		if t.annotate && (!inertAnswered(verified[r.ID], single) || lives != nil) {
			probes = append(probes, mutation{r: r, single: single, lives: lives, beside: beside})
		}
		joint := mutation{r: r, single: single, beside: beside}
		batch := mutation{r: r, single: single, probed: true, lives: lives, beside: beside}
		first := seq
		var versions []mutation // the names kapp writes into references once a versioned resource changes
		for _, p := range t.paths {
			val, _ := p.Get(desired.Object)
			// a value still drawn equal to the live one is asked about alone
			liveVal, inLive := fielddiff.ByKey(desired.Unstructured, p).GetDeclared(live.Object)
			mutated, _, _ := MutateAwayFrom(val, liveVal, inLive)
			m := mutation{r: r, path: p, value: mutated, what: fielddiff.ByKey(desired.Unstructured, p).String(), single: single, probed: t.probe,
				controller: controlled(r, desired.Object, p), seq: seq, beside: beside}
			seq++
			if next, ok := nextVersion(p, val, liveVal, inLive, beside); ok {
				p.Set(desired.Object, next)
				key := fielddiff.ByKey(desired.Unstructured, p)
				p.Set(desired.Object, val)
				versions = append(versions, mutation{r: r, path: p, value: next, what: m.what, key: key, single: single,
					probed: t.probe, controller: m.controller, beside: beside})
			}
			if !t.probe {
				v.MutationsRun++ // each judged by kapp's engine
			}
			switch {
			case !t.probe && (!p.HasPrefix(fielddiff.FromFields([]string{"metadata"})) || reads.shared(p)) && !(inLive && fielddiff.Equal(mutated, liveVal)):
				joint.members = append(joint.members, m)
			case !t.probe:
				all = append(all, m)
			default:
				p.Set(desired.Object, mutated)
				m.key = fielddiff.ByKey(desired.Unstructured, p) // a changed merge key moves the item
				p.Set(desired.Object, val)
				m.lives = lives
				if t.together && (reads.shared(p) || !apartInBatch(desired.Unstructured, p) && !t.readAt(p)) {
					batch.members = append(batch.members, m)
				} else {
					probes = append(probes, m)
				}
			}
		}
		start := len(probes)
		for _, p := range t.removals {
			key := fielddiff.ByKey(desired.Unstructured, p)
			if last := key[len(key)-1]; last.Index != nil {
				continue // an item of a list without keys: the next item takes its index
			}
			val, _ := p.Get(desired.Object)
			m := mutation{r: r, path: p, value: runtime.DeepCopyJSONValue(val), removed: true, what: key.String(), key: key,
				single: single, probed: true, controller: controlled(r, desired.Object, p), seq: seq, lives: lives, beside: beside}
			if t.derived[p.String()] {
				m.stored = defaults.Stored
			}
			probes = append(probes, m)
			seq++
			v.MutationsRun++ // judged by kapp's rebase alone
		}
		removals = append(removals, apart(probes[start:], t.apart, t.readAt, reads.shared)...)
		probes = probes[:start]
		for _, m := range versions { // each asked about alone: its path has a draw of its own in joint
			m.seq = seq
			seq++
			if m.probed {
				m.lives = lives
				probes = append(probes, m)
			} else {
				v.MutationsRun++
				all = append(all, m)
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
		switch len(batch.members) {
		case 0:
		case 1:
			probes = append(probes, batch.members[0])
		default:
			probes = append(probes, batch)
		}
		if t.reads {
			for _, m := range allUnlike(r, t.paths, desired.Unstructured, live.Unstructured, first, single, lives) {
				m.beside = beside
				probes = append(probes, m)
			}
		}
	}
	rewritten, joints, err := v.probed(in, probes, configs)
	if err != nil {
		return err
	}
	all = append(all, rewritten...)
	kept, err := v.removalsKept(in, removals, configs)
	if err != nil {
		return err
	}
	for _, m := range all {
		if m.probed {
			v.MutationsRun++
		}
	}
	for _, j := range joints {
		for _, m := range j.members {
			if m.probed {
				v.MutationsRun++
			}
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
	judged, shownOf := kept, make([]bool, len(kept)) // with what kapp showed, in the order the values were found
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
	blame := newBlame(in)
	for _, i := range order {
		m := judged[i]
		if shownOf[i] && !m.probed { // kapp applies the changed value: the rules leave it alone
			continue
		}
		h := Hidden{Resource: m.r.ID, Path: m.what, Rewritten: shownOf[i], Hypothetical: true}
		if m.removed {
			h.How, h.Removed = wouldRemoveHow, true
		}
		h.Rule, h.At = blame.responsible(m.r, m.path)
		if m.removed {
			var derived bool
			if h.Rule, h.At, derived = blame.removal(m.r, m.path, m.stored); derived {
				h.How = wouldDeriveHow
			}
		}
		if m.controller {
			v.Masked = append(v.Masked, h)
		} else {
			v.Hidden = append(v.Hidden, h)
		}
	}
	return nil
}

// inertAnswered: the verification (res) already found that the object kapp applies of the
// unchanged pair, under both bases, holds no annotation that makes kapp apply nothing, with the
// same configs and nothing but the pair entering kapp's answer (as runMutations reuses its
// baselines): the unchanged pair's rebase, which asks only that, is not asked again. Where the
// verification found one, the rebase is asked for the object, which names the rule.
func inertAnswered(res verify.Result, single bool) bool {
	return res.Alone && !single && res.Change != nil && res.Inert == ""
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

// liveVariants is the live object as it may be when kapp deploys, where a rule may act on
// more of it than its paths (touch.moves): one server write later (serverWritten), and where a
// rule's matcher reads what an earlier rule copies from it (touch.gates), holding a value at
// each gate and holding none (gatedLives).
func liveVariants(t touch, desired, live map[string]any) [][]change {
	if !t.moves || live == nil {
		return nil
	}
	var out [][]change
	if moved := serverWritten(desired, live); moved != nil {
		out = append(out, moved)
	}
	gained, lacked := gatedLives(t.gates, desired, live)
	for _, v := range [][]change{gained, lacked} {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

// serverWritten changes, to values no rule can predict (mutate, drawn away from the captured
// ones), what the live object holds that the API server or a controller rewrites between the
// capture and the deploy: its resourceVersion, generation and managers' times, its uid and
// creationTimestamp (the object deleted and created again: kapp's fallback-on-replace, a
// restore, a delete and redeploy; probe11 P11-2), its status, the
// annotations and labels a controller may write (controllerMetadata) and the other values a
// manager other than the applier owns (controllerFields); and it adds the keys people's tools
// stamp at run time (addedKeys).
// kapp deploys against the object as it is then: a rule whose effect depends on the captured
// values would pass the check and hide the change made in Git one write later.
func serverWritten(desired, live map[string]any) []change {
	if live == nil {
		return nil
	}
	var ps []fielddiff.Path
	for _, f := range []string{"resourceVersion", "generation", "uid", "creationTimestamp"} {
		ps = append(ps, fielddiff.FromFields([]string{"metadata", f}))
	}
	ps = append(ps, declaredUnder(live, append(ctlres.NewPathFromStrings([]string{"metadata", "managedFields"}), ctlres.NewPathPartFromIndexAll(), ctlres.NewPathPartFromString("time")))...)
	ps = append(ps, declaredUnder(live, ctlres.NewPathFromStrings([]string{"status"}))...)
	ps = append(ps, controllerMetadata(desired, live)...)
	ps = append(ps, controllerFields(live)...)
	var out []change
	for _, p := range ps {
		if val, ok := p.Get(live); ok {
			if mutated, ok := awayFromBoth(val, p, desired); ok {
				out = append(out, change{path: p, value: mutated})
			}
		}
	}
	for _, p := range addedKeys(live) {
		out = append(out, change{path: p, value: laterValue})
	}
	return out
}

// awayFromBoth is MutateAwayFrom of the live value val at p, drawn again while it is also the
// manifest's value there: a removal probe asks whether the object kapp applies still holds the
// manifest's value once Git removed it, so a server write drawn equal to it (a controller's
// replicas 3 drawn as the manifest's 2: 1 in 9 draws) made a copy of the live value look like
// the manifest's kept, and the gate fail at random (newcomer17 N17-1). false for a value that
// is not a scalar, or where every draw was the one or the other.
func awayFromBoth(val any, p fielddiff.Path, desired map[string]any) (any, bool) {
	declared, inDesired := p.Get(desired)
	for range 16 {
		mutated, ok := mutate(val)
		if !ok {
			return nil, false
		}
		if !fielddiff.Equal(mutated, val) && (!inDesired || !fielddiff.Equal(mutated, declared)) {
			return mutated, true
		}
	}
	return nil, false
}

// MutateAwayFrom is the mutation check's value generator (mutate), for this applier's check and
// the others': another value of v's type and shape, drawn at random, and drawn again while it is
// live, the live object's value there (inLive false: the live object lacks the field). A draw of
// the live value tells nothing: a rule copying it from the live object leaves the object the
// applier applies as the manifest would (one digit: 1 in 9 draws). ok is false for a value that
// is not a scalar; away is false when every draw was the live value (a bool whose other value is
// live's), the last draw returned.
func MutateAwayFrom(v, live any, inLive bool) (mutated any, ok, away bool) {
	for range 16 {
		if mutated, ok = mutate(v); !ok || !inLive || !fielddiff.Equal(mutated, live) {
			return mutated, ok, ok
		}
	}
	return mutated, ok, false
}
