package classify

import (
	"fmt"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/parallel"
)

// rebaser applies kapp's own rebase rules: which fields kapp would already take from the live
// object is decided by kapp's code, not by a copied list.
type rebaser struct {
	mods []ctlres.ResourceModWithMultiple
}

// newRebaser uses kapp's built-in rules, plus configs when given (the package's own rules);
// with onlyConfigs the built-in rules are left out.
func newRebaser(configs []load.Object, onlyConfigs bool) (r rebaser, err error) {
	defer func() {
		// kapp accepts a Config with an unknown rule type or an empty matcher and panics when it
		// builds the rules (RebaseMods)
		if p := recover(); p != nil {
			err = fmt.Errorf("kapp Config in %s: %v", sources(configs), p)
		}
	}()
	kappglobal.Prepare()
	var rs []ctlres.Resource
	for _, c := range configs {
		rs = append(rs, ctlres.NewResourceUnstructured(*c.Unstructured, ctlres.ResourceType{}))
	}
	var conf ctlconf.Conf
	if onlyConfigs {
		_, conf, err = ctlconf.NewConfFromResources(rs)
	} else {
		_, conf, err = ctlconf.NewConfFromResourcesWithDefaults(rs)
	}
	if err != nil {
		return rebaser{}, fmt.Errorf("reading kapp Config: %w", err)
	}
	mods := conf.RebaseMods()
	for i, m := range mods {
		mods[i] = kappglobal.SerialYTT(m) // Classify runs pairs in parallel; ytt must not (kapp's defaults include a ytt rule)
	}
	return rebaser{mods: mods}, nil
}

func sources(objs []load.Object) string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Source.String())
	}
	return strings.Join(out, "; ")
}

// covered reports for each path of ps whether kapp's rules already restore its live value; nil
// when none does.
func (r rebaser) covered(desired, live *unstructured.Unstructured, ps []fielddiff.Path) ([]bool, error) {
	if len(r.mods) == 0 || len(ps) == 0 {
		return nil, nil
	}
	rebased, err := r.rebase(desired, live)
	if err != nil {
		return nil, err
	}
	rl, ll := fielddiff.NewLookup(rebased.Object), fielddiff.NewLookup(live.Object)
	var out []bool
	for i, p := range ps {
		// raw values, as kapp's text diff compares them
		rv, rok := rl.Get(p)
		lv, lok := ll.Get(p)
		if rok == lok && fielddiff.Equal(rv, lv) {
			if out == nil {
				out = make([]bool, len(ps))
			}
			out[i] = true
		}
	}
	return out, nil
}

func (r rebaser) rebase(desired, live *unstructured.Unstructured) (res *unstructured.Unstructured, err error) {
	defer func() {
		if p := recover(); p != nil { // kapp panics on some invalid rules
			err = fmt.Errorf("kapp rebase rules failed: %v", p)
		}
	}()
	// Not copied: kapp rebases a copy of the new resource and never modifies its sources (its
	// copy rules copy them first, ytt rules marshal them); copying both objects here was a tenth
	// of the allocations of this rebase, which copies the objects whole once per rule path.
	existing := ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{})
	newRes := ctlres.NewResourceUnstructured(*desired, ctlres.ResourceType{})
	rebased, err := ctldiff.NewRebasedResource(existing, newRes, r.mods).Resource()
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: rebased.UnstructuredObject()}, nil
}

// CoveredBy returns, for each resource of rep, the paths of its uncovered ghost findings that the
// rules of configs (without kapp's built-in rules) restore, decided by kapp's rebase code as
// CoveredByPackageRules is. check asks it about the package's rules plus the user's, without
// classifying again.
func CoveredBy(rep *Report, configs []load.Object) ([]map[string]bool, error) {
	r, err := newRebaser(configs, true)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]bool, len(rep.Resources))
	errs := make([]error, len(rep.Resources))
	parallel.Each(len(rep.Resources), func() func(int) {
		return func(i int) {
			res := rep.Resources[i]
			var ps []fielddiff.Path
			for _, f := range res.Findings {
				if f.Class.Ghost() && !f.Covered() && !f.KappView {
					ps = append(ps, f.Path)
				}
			}
			if len(ps) == 0 {
				return
			}
			desired, live, err := res.Objects()
			var covered []bool
			if err == nil {
				covered, err = r.covered(desired.Unstructured, live.Unstructured, ps)
			}
			for j, c := range covered {
				if c {
					if out[i] == nil {
						out[i] = map[string]bool{}
					}
					out[i][ps[j].String()] = true
				}
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", res.ID, err)
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
