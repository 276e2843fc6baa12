package generator

import (
	"fmt"
	"slices"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// place makes the rules for the objects the package renders without a namespace follow the
// namespace it is installed into (synth.Place), and warns about rules that cannot: pinned is
// that warning, for the rules naming ns.
func (a *Analysis) place(res *synth.Result) (pinned, ns string, _ error) {
	if len(a.placed) == 0 || len(res.Rules) == 0 {
		return "", "", nil
	}
	p, warning, err := a.placement()
	switch {
	case err != nil:
		return "", "", err
	case warning != "":
		res.Warnings = append(res.Warnings, warning)
		return "", "", nil
	case p == nil:
		return "", "", nil
	}
	var ids []pair.Identity
	res.Rules, ids = synth.Place(res.Rules, *p)
	if len(ids) > 0 {
		pinned, ns = synth.PinnedWarning(ids, p.Namespace), p.Namespace
		res.Warnings = append(res.Warnings, pinned)
		slices.Sort(res.Warnings)
	}
	return pinned, ns, nil
}

// WarningsFor are g's warnings for its rules written as o says: without the one that rules name
// the namespace the package was analysed in where --output ytt --namespace-value writes that
// namespace as the data value (emit.NamespaceValues), which the warning tells the user to pass
// (newcomer11 N11-2: it was printed after the flag had taken effect).
func (g *Generated) WarningsFor(o emit.Options) []string {
	if g.pinned == "" || o.Format != emit.FormatYTT || emit.NamespaceValues(o.NamespaceValues, g.Rules)[g.pinnedIn] == "" {
		return g.Warnings
	}
	return slices.DeleteFunc(slices.Clone(g.Warnings), func(w string) bool { return w == g.pinned })
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
