package kappcover

import (
	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// LabelScoped returns what classify takes to find the selectors kapp's built-in label scoping
// rules write its app label into, where the manifest declares them, (pkg/kapp/config/default.go labelScopingRules), read with
// kapp's own rules and matchers, which leave out an object annotated
// kapp.k14s.io/disable-default-label-scoping-rules.
func LabelScoped() (classify.Scoped, error) {
	kappglobal.Prepare()
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(nil)
	if err != nil {
		return nil, err
	}
	mods := conf.LabelScopingMods(true)(map[string]string{kappconv.AppLabel: ""})
	return func(desired *unstructured.Unstructured) []fielddiff.Path {
		var out []fielddiff.Path
		for _, m := range mods {
			var keys []any
			for _, part := range m.Path {
				if part.MapKey == nil {
					keys = nil // kapp's built-in scoping paths are map keys only
					break
				}
				keys = append(keys, *part.MapKey)
			}
			p, err := fieldpath.MakePath(keys...)
			if err != nil || len(keys) == 0 {
				continue
			}
			// kapp's own mod on a copy: it writes only where its matchers match and the
			// manifest holds the map (SkipIfNotFound)
			if !m.ResourceMatcher.Matches(ctlres.NewResourceUnstructured(*desired, ctlres.ResourceType{})) {
				continue // before copying: most objects have no pod template
			}
			u := desired.DeepCopy()
			if m.Apply(ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{})) != nil {
				continue
			}
			before, _ := fielddiff.NewLookup(desired.Object).Get(fielddiff.Path(p))
			after, _ := fielddiff.NewLookup(u.Object).Get(fielddiff.Path(p))
			if !fielddiff.Equal(before, after) {
				out = append(out, fielddiff.Path(p))
			}
		}
		return out
	}, nil
}
