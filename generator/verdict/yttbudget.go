package verdict

import (
	"fmt"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// YTTWithinBudget evaluates each ytt rebase rule of rules once, on the first pair whose desired
// object it matches, within the time and memory budget of a package render
// (yttrender.EvalRebaseRule, in a process of its own where the command renders so): kapp
// evaluates a ytt rule in its own process without a bound, and kapp's engine here evaluates it
// for both bases and every mutation, so a rule that loops or allocates without end ran for hours
// or took the machine's memory. The error names the rule and the resource; a rule that fails
// otherwise is left to kapp's engine to report.
func YTTWithinBudget(rules []Rule, pairs []pair.Pair) error {
	for _, r := range rules {
		for _, m := range r.ytt {
			overlay, ok := m.(yttresmod.OverlayContractV1Mod)
			if !ok {
				continue
			}
			for _, p := range pairs {
				desired, live, err := p.Objects()
				if err != nil || !r.Matches(desired.Unstructured) {
					continue
				}
				newRes := ctlres.NewResourceUnstructured(*desired.Unstructured, ctlres.ResourceType{})
				existing := ctlres.NewResourceUnstructured(*live.Unstructured, ctlres.ResourceType{})
				res, err := newRes.AsYAMLBytes()
				if err != nil {
					return err
				}
				// kapp's sources (diff/rebased_resource.go) as its yttresmod writes them
				sources, err := yaml.Marshal(map[string]any{"new": newRes.DeepCopyRaw(), "existing": existing.DeepCopyRaw(), "_current": newRes.DeepCopyRaw()})
				if err != nil {
					return err
				}
				err = yttrender.EvalRebaseRule(fmt.Sprintf("%s on %s", r.At, p.ID), overlay.OverlayYAML, res, sources)
				if yttrender.OverBudget(err) {
					return err
				}
				break
			}
		}
	}
	return nil
}
