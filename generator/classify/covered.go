package classify

import (
	"fmt"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
)

// rebaser applies kapp's own rebase rules: which fields kapp would already take from the live
// object is decided by kapp's code, not by a copied list.
type rebaser struct {
	mods []ctlres.ResourceModWithMultiple
}

// newRebaser uses kapp's built-in rules, plus configs when given (the package's own rules);
// with onlyConfigs the built-in rules are left out.
func newRebaser(configs []load.Object, onlyConfigs bool) (rebaser, error) {
	var rs []ctlres.Resource
	for _, c := range configs {
		rs = append(rs, ctlres.NewResourceUnstructured(*c.Unstructured, ctlres.ResourceType{}))
	}
	var conf ctlconf.Conf
	var err error
	if onlyConfigs {
		_, conf, err = ctlconf.NewConfFromResources(rs)
	} else {
		_, conf, err = ctlconf.NewConfFromResourcesWithDefaults(rs)
	}
	if err != nil {
		return rebaser{}, fmt.Errorf("reading kapp Config: %w", err)
	}
	return rebaser{mods: conf.RebaseMods()}, nil
}

// covered returns the paths among ds whose live value kapp's rules already restore.
func (r rebaser) covered(desired, live *unstructured.Unstructured, ds []fielddiff.Delta) (map[string]bool, error) {
	out := map[string]bool{}
	if len(r.mods) == 0 {
		return out, nil
	}
	rebased, err := r.rebase(desired, live)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		// raw values, as kapp's text diff compares them
		rv, rok := d.Path.Get(rebased.Object)
		lv, lok := d.Path.Get(live.Object)
		if rok == lok && fielddiff.Equal(rv, lv) {
			out[d.Path.String()] = true
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
	existing := ctlres.NewResourceUnstructured(*live.DeepCopy(), ctlres.ResourceType{})
	newRes := ctlres.NewResourceUnstructured(*desired.DeepCopy(), ctlres.ResourceType{})
	rebased, err := ctldiff.NewRebasedResource(existing, newRes, r.mods).Resource()
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: rebased.UnstructuredObject()}, nil
}
