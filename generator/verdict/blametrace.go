package verdict

// kapp's rebase of a resource's manifest, traced for blame: which rules kapp matched at their
// turn and what each left.

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/kappcover"
)

// trace runs kapp's rebase of the manifest onto live with the Configs in force and finds each
// rebaseRules rule's mods among its steps: the rules are the last Configs' (generate judges its
// own rules after the package's).
func (x *blamed) trace(b *blame, live *unstructured.Unstructured) {
	x.hasTrace = true
	if b.inForce == nil && !b.failed {
		rb, err := kappcover.New(b.configs, false)
		b.inForce, b.failed = &rb, err != nil
	}
	if b.failed {
		return
	}
	prepared, steps, err := b.inForce.Trace(x.desired, live)
	n := 0
	for _, rule := range b.rules {
		n += rule.mods
	}
	if err != nil || n > len(steps) {
		return
	}
	x.prepared, x.steps, x.from = prepared.Object, steps, make([]int, len(b.rules))
	next := len(steps) - n
	for i, rule := range b.rules {
		x.from[i] = -1
		if rule.mods > 0 {
			x.from[i], next = next, next+rule.mods
		}
	}
}

// traced reports whether kapp's rebase of the manifest says whether rule i matched. The trace
// is made when first asked, and the owner's trace of another resource dropped: a resource with
// no value a rule may hide is never traced, and one trace is held at a time.
func (x *blamed) traced(i int) bool {
	if !x.hasTrace && x.owner != nil && x.desired != nil {
		if held := x.owner.holding; held != nil && held != x {
			held.untrace()
		}
		x.owner.holding = x
		x.trace(x.owner, x.live)
	}
	return x.from != nil && x.from[i] >= 0
}

// untrace drops the trace, made again if asked again (the same: the objects do not change).
func (x *blamed) untrace() {
	x.hasTrace, x.prepared, x.steps, x.from, x.stepLookups = false, nil, nil, nil, nil
}

// rewrote reports whether rule i changed the value at p (by key) in kapp's rebase of the
// manifest: what the rules before it left differs from what it leaves.
func (x *blamed) rewrote(i int, p fielddiff.Path) bool {
	if !x.traced(i) {
		return false
	}
	before, after := x.around(i)
	if after < 0 {
		return false
	}
	bv, bok := x.stepLookup(before).Get(p)
	av, aok := x.stepLookup(after).Get(p)
	return bok != aok || !fielddiff.Equal(bv, av)
}

// around returns the steps of the trace leaving the object before traced rule i (-1: the
// prepared manifest) and after it (-1: none of its steps left one).
func (x *blamed) around(i int) (before, after int) {
	before, after = -1, -1
	for k := range x.from[i] + x.rules[i].mods {
		if x.steps[k].After == nil {
			continue
		}
		if k < x.from[i] {
			before = k
		} else {
			after = k
		}
	}
	return before, after
}

// stepLookup indexes the object step k of the trace leaves (-1: the prepared manifest), once: a
// resource may hide many values.
func (x *blamed) stepLookup(k int) *fielddiff.Lookup {
	if x.stepLookups == nil {
		x.stepLookups = map[int]*fielddiff.Lookup{}
	}
	l, ok := x.stepLookups[k]
	if !ok {
		obj := x.prepared
		if k >= 0 {
			obj = x.steps[k].After
		}
		l = fielddiff.NewLookup(obj)
		x.stepLookups[k] = l
	}
	return l
}
