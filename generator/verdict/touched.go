package verdict

// What the rules in force may do to a resource: the declared values the mutation check changes or removes.

import (
	"slices"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// touch is what the rules in force may do to one resource: the scalars it declares that a rule
// could write, by index; probe: whether kapp must say which of them the rules rewrite (a rule may
// act or not depending on more than the resource's identity, or is a ytt overlay, which may write
// anything or keep each value), else each is a rule's for certain and kapp's engine judges it
// directly; annotate: a rule may write an annotation that makes kapp apply nothing
// (verify.AppliesNothing).
type touch struct {
	paths           []fielddiff.Path
	probe, annotate bool
	// moves: a rule may act depending on more of the live object than its paths (a hand-written
	// ytt overlay, a matcher kapp decides on the rebased object), so the probes also see the
	// live object moved on (serverWritten)
	moves bool
	// reads: a hand-written ytt rule may act, which reads values: the probes also draw values
	// unlike mutate's (allUnlike)
	reads bool
	// gates: where the live object decides whether a rule matches (gates): the probes also see
	// the live object holding a value there and holding none
	gates []ctlres.Path
	// removals: the declared values a rule may put back once the manifest no longer declares
	// them (a removal made in Git), by index
	removals []fielddiff.Path
	// derived: the removals (by index) of fields the API server derives from one a copy puts
	// back (aliased), judged on what the server makes of the object kapp applies
	derived map[string]bool
	// apart: a rule that may put back a removal is a hand-written ytt overlay: each removal is
	// asked about alone (else each copy acts on its own path whatever the others hold, and they
	// are removed together, but for those the matchers read)
	apart bool
	// together: where kapp's rebase must say which values the rules rewrite (probe), the values
	// may be changed together, one rebase answering for each (probes): every rule that may rewrite
	// one acts on its own paths, and a ytt rule among them is one generate writes, whose program
	// reads each value it rewrites at its own path only (through the merge keys of the items on
	// the way; a Secret's stringData key with the data key of its name)
	together bool
	// reads: what the matchers the resource's identity does not decide read
	// (kappmatch.Matcher.Reads): a value changed or removed there may change whether a rule acts
	// on the others, so it is asked about alone (readAt); elsewhere a rule's matcher decides the
	// same on every value changed together, and the values share a rebase whatever the matchers
	readsAt []ctlres.Path
}

// readAt reports whether a matcher t.readsAt names reads the value at p (by index), or one
// below or above it.
func (t touch) readAt(p fielddiff.Path) bool {
	if len(t.readsAt) == 0 {
		return false
	}
	kp := kappPath(p)
	return slices.ContainsFunc(t.readsAt, func(q ctlres.Path) bool { return overlap(kp, q) })
}

// touched says what the rules may do to desired. A rule may act on a resource its matchers do not
// rule out by identity under any name kapp matches it by (ids, matchedAs); a copy or remove, an exclusion, a label or
// template rule writes only under its paths; additionalLabels only entries of their keys; a ytt
// overlay anything (what a generated one rewrites is known: its hint). A copy from new first
// keeps every value the manifest declares. A copy from the live object that kapp may match or
// not depending on more than the resource's identity (an emptyFieldMatcher: a copy of
// metadata.annotations only while the manifest declares none put back every annotation the
// manifest dropped), or by identity alone, puts back what it copies once the manifest no longer declares it (removals:
// the maps and lists declared at its paths; one under them removed leaves the manifest's value
// there, or is put back with it), a hand-written ytt overlay anything (every map and list
// declared; a generated one rewrites values, its hint, never puts back a map). A copy matched
// by identity alone is tried the same way: a kind's copy of a map from new first (a
// container's resources the server made on the resources that lack them) puts back the live
// map where a resource's manifest drops it (issue 23), so synth names the resources lacking
// such a map, or selects the items lacking it by key (ytt). A copy's removals are also the
// scalars declared at its paths and the maps declared above them (within the list item or
// top-level field they are in): a copy of imagePullPolicy from the live object keeps
// IfNotPresent where Git removed it and the server would default Always (an image :latest), and
// a copy of resources.limits.cpu keeps the cpu of a resources map Git removed. Which of those
// removals change nothing (the server's defaults give the value back) is decided once kapp
// put one back (removalsKept).
func touched(rules []Rule, desired *unstructured.Unstructured, ids []kappmatch.Identity, defaults *classify.Removals) touch {
	t := touch{together: true, derived: map[string]bool{}}
	var made map[string]any // the server's defaulting of desired, once a copy may restore
	all, allRemovals := false, false
	for _, rule := range rules {
		matches, decided := decidedAs(rule.matcher, ids)
		if decided && !matches {
			continue
		}
		if !decided {
			t.readsAt = append(t.readsAt, rule.matcher.Reads()...)
		}
		switch {
		case rule.ytt != nil && !rule.At.Generated:
			allRemovals = true
		case rule.restores:
			for _, kp := range rule.paths {
				t.removals = append(t.removals, removable(desired.Object, kp, false)...)
				t.removals = append(t.removals, scalarsAndAbove(desired.Object, kp)...)
				if made == nil {
					made, _ = defaults.Stored(desired.Object)
				}
				for _, a := range aliased(desired, kp, made, defaults) {
					t.removals = append(t.removals, a)
					t.derived[a.String()] = true
				}
			}
		}
		if rule.ytt != nil && !rule.At.Generated || rule.restores {
			t.apart = t.apart || rule.ytt != nil
		}
		if rule.keepsDeclared {
			continue
		}
		t.probe = t.probe || !decided || rule.ytt != nil
		t.together = t.together && (rule.ytt == nil || rule.At.Generated)
		t.moves = t.moves || !decided || rule.ytt != nil && !rule.At.Generated
		t.reads = t.reads || rule.ytt != nil && !rule.At.Generated
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
	if t.gates = gates(rules, desired, ids); len(t.gates) > 0 {
		t.probe, t.moves = true, true
	}
	if all {
		t.paths = declaredUnder(desired.Object, nil)
	}
	if allRemovals {
		t.removals = removable(desired.Object, nil, true)
	}
	// kapp refuses any value of the manifest's kapp.k14s.io/nonce but "", which it replaces on
	// every deploy: Git can give it no other value for a rule to hide
	t.paths = slices.DeleteFunc(t.paths, nonceAt)
	t.paths, t.removals = unique(t.paths), unique(t.removals)
	return t
}

// scalarsAndAbove lists the scalars obj declares at kapp's path kp and the maps declared above
// each value there, by index: within the list item holding it, or below its top-level field (a
// Git change takes away a container's resources, not its spec.template).
func scalarsAndAbove(obj map[string]any, kp ctlres.Path) []fielddiff.Path {
	var out []fielddiff.Path
	walkPath(obj, kp, nil, func(v any, at fielddiff.Path) {
		if _, ok := mutate(v); ok && !slices.ContainsFunc(identity, func(q fielddiff.Path) bool { return q.HasPrefix(at) }) {
			out = append(out, at)
		}
		lo := 2
		for i, pe := range at {
			if pe.FieldName == nil {
				lo = i + 2
			}
		}
		for k := len(at) - 1; k >= lo; k-- {
			if !slices.ContainsFunc(identity, func(q fielddiff.Path) bool { return q.HasPrefix(at[:k]) }) {
				out = append(out, slices.Clone(at[:k]))
			}
		}
	})
	return out
}

// aliased lists the scalars obj declares that the API server's defaulting derives from a field
// at kapp's path kp (its aliases, classify.Removals.Derived), by index: a copy of the live field
// puts such a scalar back once Git removes it (a pod spec's serviceAccountName, from the copied
// serviceAccount: newcomer8 N8-6), which removalsKept judges on what the server makes of the
// object kapp applies. The fields at kp are those of the server's defaulting of obj (made): the
// manifest leaves the alias out, the server sets it.
func aliased(obj *unstructured.Unstructured, kp ctlres.Path, made map[string]any, defaults *classify.Removals) []fielddiff.Path {
	var out []fielddiff.Path
	walkPath(made, kp, nil, func(_ any, at fielddiff.Path) {
		if leaf := at[len(at)-1].FieldName; leaf != nil {
			for _, k := range defaults.Derived(obj, at[:len(at)-1], *leaf) {
				out = append(out, with(at[:len(at)-1], fieldpath.PathElement{FieldName: &k}))
			}
		}
	})
	return out
}

// unique is ps without repeats, in order.
func unique(ps []fielddiff.Path) []fielddiff.Path {
	seen := map[string]bool{}
	return slices.DeleteFunc(ps, func(p fielddiff.Path) bool {
		k := p.String()
		dup := seen[k]
		seen[k] = true
		return dup
	})
}

// writesInert reports whether a rebase rule's path can lead to an annotation that makes kapp
// apply nothing (verify.AppliesNothing), or to a map holding it.
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
// metadata.annotations where one's path leads there (verify.AppliesNothing).
func labelsInert(keys map[string]bool) bool {
	return keys[kappconv.NoopAnnotation] || keys[kappconv.ExistsAnnotation] || keys[kappconv.UpdateStrategyAnnotation]
}
