package generator

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/rulefiles"
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

// unplacedWarning says why rules generated from --desired into a file whose header records
// --package differ from what its Regenerate line writes: --package makes the rules for the objects
// the package renders without a namespace follow the install namespace, and from the same
// rendering given as --desired (ytt -f config > rendered.yaml; generate -d rendered.yaml
// --output-file config/rebase-rules.yml) they name the namespace analysed in. The file records
// --desired then, and check judges it by that (verdict.Regeneration): consistent, but held only
// in that namespace (newcomer16 N16-1). "" when the rules would be the same.
func (a *Analysis) unplacedWarning(rules []synth.Rule) (string, error) {
	if len(rules) == 0 {
		return "", nil
	}
	for _, file := range a.Inputs.RuleFiles {
		if !rulefiles.Rereadable(file) {
			continue // a new file or a pipe: nothing recorded
		}
		data, err := a.Inputs.Reader.ReadFile(file)
		if err != nil {
			continue // a directory: no Regenerate line
		}
		opts, ok, err := emit.Recorded(file, string(data))
		if err != nil || !ok || len(opts.Packages) == 0 || opts.PackageCR != "" {
			continue
		}
		p, err := a.renderedPlacement()
		if err != nil || p == nil {
			return "", err
		}
		if placed, _ := synth.Place(rules, *p); reflect.DeepEqual(placed, rules) {
			return "", nil
		}
		return fmt.Sprintf("%s: its Regenerate line renders the package (--package %s), whose rules for the objects it renders without a namespace follow the namespace it is installed into (kapp-controller: the PackageInstall's); from --desired they name namespace %s and hold only where it is installed into %s: generate with the Regenerate line's --package to keep them following it",
			file, strings.Join(opts.Packages, " --package "), p.Namespace, p.Namespace), nil
	}
	return "", nil
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
	p, err := a.placementOf(a.placed)
	return p, "", err
}

// renderedPlacement is the placement --package gives the --desired objects without a namespace
// when no package is given: a package rendered outside rebasegen (ytt -f config | rebasegen
// check -d -, the Action's desired:) leaves them so, and kapp-controller places them into the
// install namespace as it places the package's. check regenerates a rules file whose header
// records --package with it, as --package would have written the file from the same rendering
// (newcomer16 N16-1: named in the namespace they were analysed in, its rules were called stale).
// nil when a package is given (placement is its) or every desired object declares a namespace.
func (a *Analysis) renderedPlacement() (*synth.Placement, error) {
	if !a.Inputs.Package.Empty() || len(a.bare) == 0 {
		return nil, nil
	}
	return a.placementOf(a.bare)
}

// placementOf is the Placement of the desired objects, those of the documents in placed placed.
func (a *Analysis) placementOf(placed map[load.Source]bool) (*synth.Placement, error) {
	var desired []load.Doc
	for _, pr := range a.Set.Pairs {
		desired = append(desired, pr.Desired)
	}
	desired = append(desired, a.Set.Created...)
	return synth.PlacementOf(desired, func(d load.Doc) bool { return placed[d.Source] })
}
