package verdict

import (
	"errors"
	"fmt"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// YTTWithinBudget evaluates each ytt rebase rule of rules once, on the first pair whose desired
// object it matches, within the time and memory budget of a package render
// (yttrender.EvalRebaseRule, in a process of its own where the command renders so): kapp
// evaluates a ytt rule in its own process without a bound, and kapp's engine here evaluates it
// for both bases and every mutation, so a rule that loops or allocates without end ran for hours
// or took the machine's memory. The mutation check's own evaluations are bounded by
// mutatedWithinBudget. The error names the rule and the resource; a rule that fails otherwise is
// left to kapp's engine to report.
func YTTWithinBudget(rules []Rule, pairs []pair.Pair) error {
	for _, r := range rules {
		for _, m := range r.ytt {
			overlay, ok := m.(yttresmod.OverlayContractV1Mod)
			if !ok {
				continue
			}
			for _, p := range pairs {
				desired, live, err := p.Objects()
				if err != nil || !matchesAs(r, desired.Unstructured, live.Unstructured) {
					continue
				}
				if err := evalWithinBudget(fmt.Sprintf("%s on %s", r.At, p.ID), overlay, desired.Unstructured, live.Unstructured); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// mutatedWithinBudget evaluates each ytt rebase rule of rules within the budget (as
// YTTWithinBudget) on each probe's pair with its value changed, where the rule's matchers do not
// rule the resource out by identity (kapp matches it on the resource as prepared and rebased,
// which may differ from the manifest's): kapp's engine evaluates the rule on exactly these, and a
// rule may loop or allocate only when a value differs from the live one, which the unchanged
// pairs never show.
func mutatedWithinBudget(rules []Rule, probes []mutation) error {
	for _, r := range rules {
		if r.At.Generated { // generate's own rule, written in this run: its overlay is synth's
			continue
		}
		for _, m := range r.ytt {
			overlay, ok := m.(yttresmod.OverlayContractV1Mod)
			if !ok {
				continue
			}
			for _, pr := range probes {
				if pr.path == nil && pr.members == nil {
					continue
				}
				desired, live, err := pr.r.Objects()
				if err != nil {
					return err
				}
				if matches, decided := decidedAs(r.matcher, matchedAs(desired.Unstructured, live.Unstructured)); decided && !matches {
					continue
				}
				pr.applyTo(desired.Object)
				for _, member := range pr.members {
					member.applyTo(desired.Object)
				}
				source := fmt.Sprintf("%s on %s with %s changed (check's mutation check)", r.At, pr.r.ID, pr.what)
				if err := evalWithinBudget(source, overlay, desired.Unstructured, live.Unstructured); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// evalWithinBudget evaluates overlay on desired against live as kapp's yttresmod does, within
// the budget; only an evaluation over the budget is an error here.
func evalWithinBudget(source string, overlay yttresmod.OverlayContractV1Mod, desired, live *unstructured.Unstructured) error {
	newRes := ctlres.NewResourceUnstructured(*desired, ctlres.ResourceType{})
	existing := ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{})
	res, err := newRes.AsYAMLBytes()
	if err != nil {
		return err
	}
	// kapp's sources (diff/rebased_resource.go) as its yttresmod writes them
	sources, err := yaml.Marshal(map[string]any{"new": newRes.DeepCopyRaw(), "existing": existing.DeepCopyRaw(), "_current": newRes.DeepCopyRaw()})
	if err != nil {
		return err
	}
	if err := yttrender.EvalRebaseRule(source, overlay.OverlayYAML, res, sources); yttrender.OverBudget(err) {
		return err
	}
	return nil
}

// NameYTTRule is err, or where kapp's engine abandoned a ytt rebase rule's evaluation for its
// time budget (kappglobal.YTTOverrun) or its memory budget (kappglobal.YTTOverBudget) or withheld its error on a Secret (kappglobal.YTTWithheld),
// the error naming that rule of rules (its file, line, document and key) and the resource, as a
// budgeted render's does.
func NameYTTRule(err error, rules []Rule) error {
	var overlay, msg string
	var res pair.Identity
	if o := (*kappglobal.YTTOverrun)(nil); errors.As(err, &o) {
		overlay, res = o.Overlay, pair.Identity{Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
		msg = fmt.Sprintf("with ytt: not done after %v (a loop that does not end?)", o.Timeout)
	} else if b := (*kappglobal.YTTOverBudget)(nil); errors.As(err, &b) {
		overlay, res = b.Overlay, pair.Identity{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}
		msg = "with ytt: " + (&yttrender.MemoryExceeded{Memory: b.Memory}).Error()
	} else if w := (*kappglobal.YTTWithheld)(nil); errors.As(err, &w) {
		overlay, res = w.Overlay, pair.Identity{Group: w.Group, Kind: w.Kind, Namespace: w.Namespace, Name: w.Name}
		msg = "with ytt: it failed, and " + kappglobal.WithheldMessage
	} else {
		return err
	}
	for _, r := range rules {
		for _, m := range r.ytt {
			if y, ok := m.(yttresmod.OverlayContractV1Mod); ok && y.OverlayYAML == overlay {
				return fmt.Errorf("rendering ytt rebase rule %s on %s %s", r.At, res, msg)
			}
		}
	}
	return fmt.Errorf("rendering a ytt rebase rule on %s %s", res, msg)
}
