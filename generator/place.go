package generator

import (
	"fmt"
	"slices"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// place makes the rules for the objects the package renders without a namespace follow the
// namespace it is installed into (synth.Place), and warns about rules that cannot.
func (a *Analysis) place(res *synth.Result) error {
	if len(a.placed) == 0 || len(res.Rules) == 0 {
		return nil
	}
	p, warning, err := a.placement()
	switch {
	case err != nil:
		return err
	case warning != "":
		res.Warnings = append(res.Warnings, warning)
		return nil
	case p == nil:
		return nil
	}
	var pinned []pair.Identity
	res.Rules, pinned = synth.Place(res.Rules, *p)
	if len(pinned) > 0 {
		res.Warnings = append(res.Warnings, synth.PinnedWarning(pinned, p.Namespace))
		slices.Sort(res.Warnings)
	}
	return nil
}

// placement is what synth.Place needs to make rules follow the namespace the package is
// installed into; nil when the package renders every object with a namespace, when kapp puts
// every namespaced object into the Package's intoNs (the rules name it), or when its deploy step
// maps namespaces, which warning then says.
func (a *Analysis) placement() (_ *synth.Placement, warning string, _ error) {
	if len(a.placed) == 0 {
		return nil, "", nil
	}
	intoNs, mapNs, err := a.Inputs.Package.DeployNamespaces(a.Inputs.Reader)
	switch {
	case err != nil:
		return nil, "", err
	case intoNs != "":
		return nil, "", nil // kapp puts every namespaced object into the Package's intoNs: the rules name it
	case len(mapNs) > 0:
		return nil, fmt.Sprintf("%s: its kapp deploy step maps namespaces (mapNs): the rules name the namespaces the objects were analysed in", a.Inputs.Package.CR), nil
	}
	var desired []load.Doc
	for _, pr := range a.Set.Pairs {
		desired = append(desired, pr.Desired)
	}
	desired = append(desired, a.Set.Created...)
	p, err := synth.PlacementOf(desired, func(d load.Doc) bool { return a.placed[d.Source] })
	return p, "", err
}
