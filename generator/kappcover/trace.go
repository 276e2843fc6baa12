package kappcover

import (
	"sync"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Step is what one rebase mod of the configs did in kapp's rebase of a resource: whether kapp
// matched it on the resource as the mods before it left the resource, and the resource after it
// (nil when it did not match).
type Step struct {
	Matched bool
	After   map[string]any
}

// Trace rebases desired onto live as Rebased does, through kapp's own rebase
// (diff/rebased_resource.go), and returns the prepared object and a step for each rebase mod of
// the configs (kapp's built-in mods, which run first, left out), in kapp's order: a rule's
// matcher may hold only on the resource the rules before it rebased (an emptyFieldMatcher true
// once a built-in rule copied the live value), which the manifest does not show.
func (r Rebaser) Trace(desired, live *unstructured.Unstructured) (*unstructured.Unstructured, []Step, error) {
	prepared, err := r.Prepared(desired, live)
	if err != nil {
		return nil, nil, err
	}
	first := min(builtinMods(), len(r.mods))
	steps := make([]Step, len(r.mods)-first)
	traced := Rebaser{prep: r.prep, mods: make([]ctlres.ResourceModWithMultiple, len(r.mods))}
	for i, m := range r.mods {
		traced.mods[i] = m
		if i >= first {
			traced.mods[i] = tracedMod{m, &steps[i-first]}
		}
	}
	if _, err := traced.rebase(prepared, live); err != nil {
		return nil, nil, err
	}
	return prepared, steps, nil
}

// builtinMods counts the rebase mods of kapp's built-in Config, which config.Conf.RebaseMods
// puts before those of the configs (r is made with kapp's built-in rules).
var builtinMods = sync.OnceValue(func() int {
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(nil)
	if err != nil {
		return 0
	}
	return len(conf.RebaseMods())
})

// tracedMod records what kapp does with mod into step.
type tracedMod struct {
	ctlres.ResourceModWithMultiple
	step *Step
}

func (t tracedMod) IsResourceMatching(res ctlres.Resource) bool {
	ok := t.ResourceModWithMultiple.IsResourceMatching(res)
	t.step.Matched = ok
	return ok
}

func (t tracedMod) ApplyFromMultiple(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	if err := t.ResourceModWithMultiple.ApplyFromMultiple(res, srcs); err != nil {
		return err
	}
	t.step.After = res.DeepCopy().UnstructuredObject()
	return nil
}
