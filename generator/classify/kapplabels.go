package classify

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// What kapp's label rules (its built-in and the rules' ownershipLabelRules and labelScopingRules,
// additional labels, the manifest's kapp.k14s.io/disable-default-label-scoping-rules) write is part
// of what kapp applies: prepared, the manifest as kapp's LabeledResources.Prepare labels it, is
// judged against the live object here. The field diff hides every key under kapp's prefix as
// kapp's own bookkeeping, so a label these rules add or no longer write would otherwise go
// unreported, also where the API server refuses it (a Deployment's spec.selector: outside probe
// 10, P10-3).

// kappDeployed: kapp deployed the live object (its app label, its last apply), so what its label
// rules change there is a change made in Git; else kapp takes the object over (scopingFails).
func kappDeployed(fc fieldContext) bool {
	return fc.sent != nil && fc.live.GetLabels()[kappconv.AppLabel] != ""
}

// kappLabelsFromGit finds, on an object kapp deployed, kapp's own labels that its label rules now
// write where neither kapp's last apply (kapp.k14s.io/original) nor the live object holds them,
// the manifest itself leaving them out (an ownership or label scoping rule added in Git), and
// those they no longer write where kapp's last apply and the live object hold them (the manifest
// now disables kapp's default ownership or label scoping rules, a rule taken out of the Config):
// this deploy applies both, and fails on them where the field is immutable.
func (c *classifier) kappLabelsFromGit(fc fieldContext, prepared *unstructured.Unstructured) []Finding {
	if !kappDeployed(fc) {
		return nil
	}
	liveAt, preparedAt := fielddiff.NewLookup(fc.live.Object), fielddiff.NewLookup(prepared.Object)
	var out []Finding
	add := func(f Finding) {
		if why, blocks, ok := c.immutableChange(fc, f.Path.String()); ok {
			f.Blocks, f.Evidence = blocks, f.Evidence+why
		}
		out = append(out, f)
	}
	walkKappKeys(prepared.Object, nil, func(p fielddiff.Path, v any) {
		if !itemsOnBoth(p, liveAt, preparedAt) {
			return
		}
		_, declared := fc.manifestAt.Get(p)
		_, sent := fc.sentAt.Get(p)
		_, live := liveAt.Get(p)
		if declared || sent || live {
			return
		}
		add(Finding{Path: p, Change: fielddiff.Removed, Class: Pending, Desired: v,
			Evidence: "a change made in Git: a rule of kapp's Config (ownership or label scoping) has kapp write its own label here; kapp's last apply (" + kappconv.Original + ") did not hold it, nor does the live object; this deploy applies it"})
	})
	walkKappKeys(fc.live.Object, nil, func(p fielddiff.Path, v any) {
		if len(p) > 2 && p[:2].String() == "metadata.annotations" || !slices.Contains([]string{kappconv.AppLabel, kappconv.AssociationLabel}, *p[len(p)-1].FieldName) {
			return // only labels kapp's label rules write
		}
		if !itemsOnBoth(p, liveAt, preparedAt) {
			return
		}
		_, declared := fc.manifestAt.Get(p)
		_, sent := fc.sentAt.Get(p)
		_, kept := preparedAt.Get(p)
		if declared || kept || !sent {
			return
		}
		add(Finding{Path: p, Change: fielddiff.Added, Class: Pending, Live: v,
			Evidence: "a change made in Git: kapp's label rules (its built-in ownership and label scoping rules, less where the manifest carries " + kappconv.DisableDefaultOwnership + " or " + kappconv.DisableDefaultLabelScoping + ", and the Config's) no longer write its label here, which kapp's last apply (" + kappconv.Original + ") and the live object hold; this deploy removes it"})
	})
	return out
}

// scopingFails names what kapp's first deploy of an object it takes over would do that the API
// server refuses: write its labels (its built-in label scoping rules, Options.LabelScoped, or the
// rules' ownership and label scoping rules: all in prepared) into a field that is immutable
// (rulesets/immutable.yaml) and does not hold them yet. Measured with the real kapp CLI: the
// deploy fails with "field is immutable" unless the manifest turns the rules off.
func (c *classifier) scopingFails(fc fieldContext, prepared *unstructured.Unstructured) []Finding {
	if kappDeployed(fc) {
		return nil // kappLabelsFromGit's
	}
	var builtin []string
	if c.scoped != nil {
		for _, p := range c.scoped(fc.desired) {
			builtin = append(builtin, p.String())
		}
	}
	liveAt, desiredAt := fielddiff.NewLookup(fc.live.Object), fielddiff.NewLookup(fc.desired.Object)
	var out []Finding
	seen := map[string]bool{}
	walkKappKeys(prepared.Object, nil, func(here fielddiff.Path, _ any) {
		key := *here[len(here)-1].FieldName
		if key != kappconv.AppLabel && key != kappconv.AssociationLabel {
			return
		}
		p := here[:len(here)-1] // the map kapp writes into
		ps := p.String()
		e, immutable := c.immutableAt(fc, ps)
		if !immutable || e.Kept || seen[ps] {
			return
		}
		lv, _ := liveAt.Get(p)
		if m, ok := lv.(map[string]any); ok {
			if _, has := m[key]; has {
				return // kapp deployed it with its label there: nothing changes
			}
		}
		seen[ps] = true
		dv, _ := desiredAt.Get(p)
		evidence := fmt.Sprintf("kapp's first deploy fails here: it adds its label %s (kapp v0.66.0 built-in labelScopingRules, pkg/kapp/config/default.go), which the live object lacks, and %s is immutable (rulesets: %s), so the API server refuses the update; annotate the manifest with %s: \"\" to leave the selector as it is",
			kappconv.AppLabel, e.Path, e.Source, kappconv.DisableDefaultLabelScoping)
		if key != kappconv.AppLabel || !slices.Contains(builtin, ps) {
			evidence = fmt.Sprintf("kapp's first deploy fails here: a rule of kapp's Config (ownership or label scoping) has it add its label %s, which the live object lacks, and %s is immutable (rulesets: %s), so the API server refuses the update; take %s out of the rule's path or this resource out of its resourceMatchers",
				key, e.Path, e.Source, ps)
		}
		out = append(out, Finding{Path: p, Change: fielddiff.Modified, Class: Adoption, Owner: "kapp", Desired: dv, Live: lv, Blocks: true, Evidence: evidence})
	})
	return out
}

// kappLabelsOnTakeover finds kapp's own labels (its app and association labels) that kapp's first
// deploy of an object it takes over writes where the live object lacks them: at the object's
// labels (resources/labeled_resources.go), and where its built-in ownership and label scoping
// rules (pkg/kapp/config/default.go) and the Config's write them (a pod template's labels, a
// Service's selector), all in prepared. They are what that deploy applies, once: adoption. Found
// nowhere, an object no other tool's bookkeeping marks, first applied by kubectl apply
// --server-side, left kapp's update unexplained, a residual ghost diff (newcomer walkthrough 10,
// N10-4). An immutable field is scopingFails'.
func (c *classifier) kappLabelsOnTakeover(fc fieldContext, prepared *unstructured.Unstructured) []Finding {
	if kappDeployed(fc) {
		return nil // kappLabelsFromGit's
	}
	liveAt := fielddiff.NewLookup(fc.live.Object)
	var out []Finding
	walkKappKeys(prepared.Object, nil, func(p fielddiff.Path, v any) {
		key := *p[len(p)-1].FieldName
		if key != kappconv.AppLabel && key != kappconv.AssociationLabel || len(p) > 2 && p[:2].String() == "metadata.annotations" {
			return
		}
		if _, live := liveAt.Get(p); live || !itemsOnBoth(p, liveAt, fielddiff.NewLookup(prepared.Object)) {
			return
		}
		if _, declared := fc.manifestAt.Get(p); declared {
			return
		}
		if _, immutable := c.immutableAt(fc, p[:len(p)-1].String()); immutable {
			return
		}
		if key == kappconv.AppLabel {
			// prepared holds a stand-in (the live object has no app label to take it from)
			v = kappconv.AppLabelValue
		}
		out = append(out, Finding{Path: p, Change: fielddiff.Removed, Class: Adoption, Owner: "kapp", Desired: v,
			Evidence: "kapp's first deploy of an object it takes over writes its label " + key + " here (kapp v" + kappconv.Kapp +
				" resources/labeled_resources.go; the ownershipLabelRules and labelScopingRules built in, pkg/kapp/config/default.go, and the Config's), which the live object lacks: kapp changes it once, when it takes the object over"})
	})
	return out
}

// itemsOnBoth reports whether the list items on p are in both objects: a whole item added or
// removed in Git (a volumeClaimTemplate) is the field diff's change, kapp's labels in it with it.
func itemsOnBoth(p fielddiff.Path, a, b *fielddiff.Lookup) bool {
	for i := range p {
		if p[i].Index == nil {
			continue
		}
		_, inA := a.Get(p[:i+1])
		_, inB := b.Get(p[:i+1])
		if !inA || !inB {
			return false
		}
	}
	return true
}

// walkKappKeys calls f with the path and value of every key under kapp's prefix in m's maps, in
// order, list items included: kapp's label rules write into maps inside lists too (its built-in
// ownership label rule into a StatefulSet's spec.volumeClaimTemplates, itself immutable).
func walkKappKeys(m map[string]any, at fielddiff.Path, f func(here fielddiff.Path, v any)) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		here := append(slices.Clone(at), fieldpath.PathElement{FieldName: &k})
		switch child := m[k].(type) {
		case map[string]any:
			walkKappKeys(child, here, f)
		case []any:
			for i := range child {
				if item, ok := child[i].(map[string]any); ok {
					walkKappKeys(item, append(slices.Clone(here), fieldpath.PathElement{Index: &i}), f)
				}
			}
		default:
			if strings.HasPrefix(k, kappconv.Prefix) {
				f(here, m[k])
			}
		}
	}
}
