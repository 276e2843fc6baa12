package classify

import (
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// kapp replaces an object it updates (carvel.dev/kapp v0.66.0 pkg/kapp/clusterapply
// add_or_update_change.go) under kapp.k14s.io/update-strategy always-replace, whatever the
// change, and under fallback-on-replace where the API server refuses the update as invalid: it
// deletes the live object, then creates the manifest. Deleting a CRD deletes every custom resource
// of it, so no change kapp makes so to a CRD is what its author asked for: each fails the gate.
// kapp reads the strategy of the manifest only where its diff, after the rules, is an update, so
// a CRD with no change stays as it is.

// isCRD reports whether fc's object is a CustomResourceDefinition.
func isCRD(fc fieldContext) bool {
	return fc.id.Group == crdKind.Group && fc.id.Kind == crdKind.Kind
}

// crdFallbackReplaced is the evidence of a change to a CRD under fallback-on-replace whose
// update the API server refuses: refused is updateChange's evidence of the refusal.
func (c *classifier) crdFallbackReplaced(fc fieldContext, refused string) string {
	why := strings.TrimSuffix(strings.TrimPrefix(refused, "; kapp's deploy fails here: "), "; "+crdRemedy)
	_, named, undo := c.updateStrategy(fc)
	return "; kapp's deploy deletes the CRD here: " + why + ", so under " + named + " kapp deletes the live CustomResourceDefinition, and with it every custom resource of it, then creates the manifest's (kapp v" + kappconv.Kapp +
		" clusterapply UpdateOrFallbackOnReplaceStrategy); " + undo + ", and " + crdRemedy
}

// updateStrategy is the update strategy kapp's update of fc's object takes (kapp v0.66.0
// clusterapply AddOrUpdateChange.ApplyStrategy): the manifest's kapp.k14s.io/update-strategy
// where it has one (even empty), else kapp deploy's --apply-default-update-strategy (a Package's
// rawOptions: pair.Deploy). named says which for the evidence, undo how to have kapp update in
// place.
func (c *classifier) updateStrategy(fc fieldContext) (strategy, named, undo string) {
	if s, ok := fc.desired.GetAnnotations()[kappconv.UpdateStrategy]; ok || c.deploy.DefaultUpdateStrategy == "" {
		return s, kappconv.UpdateStrategy + ": " + s, "remove the annotation"
	}
	s := c.deploy.DefaultUpdateStrategy
	return s, "kapp deploy's --apply-default-update-strategy=" + s + " (" + c.deploy.StrategyAt + ")", "remove that rawOption, or annotate the manifest " + kappconv.UpdateStrategy + `: ""`
}

// crdReplacements marks the changes kapp's deploy makes to a CRD by replacing it (fs: its
// findings) as failing the gate: under always-replace every change kapp applies (made in Git, on
// the cluster, or on takeover); under fallback-on-replace, without the API server's update
// validation to tell (Options.CRDUpdate nil), every change made in Git. The changes whose update
// the validation refuses under fallback-on-replace immutableChange marks.
func (c *classifier) crdReplacements(fc fieldContext, fs []Finding) {
	if !isCRD(fc) {
		return
	}
	ann := fc.desired.GetAnnotations()
	if _, versioned := ann[kappconv.Versioned]; versioned {
		return // kapp creates a new CRD, of another name
	}
	var why string
	applied := []Class{Pending}
	strategy, named, undo := c.updateStrategy(fc)
	switch strategy {
	case "always-replace":
		why = "; kapp's deploy deletes the CRD here: under " + named + " kapp makes any change to it by deleting the live CustomResourceDefinition, and with it every custom resource of it, then creating the manifest's (kapp v" + kappconv.Kapp +
			" clusterapply UpdateAlwaysReplaceStrategy); " + undo + ": kapp then updates the CRD in place"
		applied = append(applied, Drift, Adoption)
	case "fallback-on-replace":
		if c.crdValidation != nil {
			return
		}
		why = "; kapp's deploy may delete the CRD here: under " + named + " kapp deletes the live CustomResourceDefinition, and with it every custom resource of it, then creates the manifest's, wherever the API server refuses its update (kapp v" + kappconv.Kapp +
			" clusterapply UpdateOrFallbackOnReplaceStrategy), which is not judged here: no CRD update validation was given (generator.Inputs.CRDUpdate); " + undo + ": kapp then updates the CRD in place"
	default:
		return
	}
	for i := range fs {
		f := &fs[i]
		if f.Blocks || len(f.Path) == 0 || !slices.Contains(applied, f.Class) {
			continue
		}
		f.Blocks = true
		if gt := f.GitToo; gt != nil && strings.HasSuffix(f.Evidence, gt.Also) {
			// a drift's evidence ends with the change made in Git beside it (verdict rewrites it)
			f.Evidence, gt.Evidence = strings.TrimSuffix(f.Evidence, gt.Also)+why+gt.Also, gt.Evidence+why
			continue
		}
		f.Evidence += why
	}
}
