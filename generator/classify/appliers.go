package classify

import (
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/rulesets"
)

// lastApplied is the annotation kubectl apply (client-side) keeps the manifest it applied in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// appliers are the field managers that applied the desired state. A field they own is what a
// manifest said, so a differing value there is a change made in Git (or a server default),
// never a controller's: ruling it "from the cluster" would hide that change.
//
// The applier shown for the resource (main) is established once, from the strongest evidence
// first: kapp's kapp.k14s.io/original annotation with a managedFields entry of kapp's; kubectl's
// last-applied annotation with kubectl apply's entry; the known appliers of
// rulesets/managers.yaml (the one owning the most fields); a manager owning most of the fields
// the manifest declares. Every explanation names that one.
type appliers struct {
	main     string            // the applier shown for the resource, "" when none is recognised
	evidence map[string]string // every applier, with why it is one
}

// applierObject is what findAppliers reads of the objects besides managedFields.
type applierObject struct {
	annotations map[string]string // the live object's
	// declared returns the fields the manifest declares (nil: unknown). Called only when a
	// manager neither known nor human is weighed. Performance: converting the manifest for it
	// was a twentieth of classification, for the few resources such a manager writes.
	declared   func() *fieldpath.Set
	sent, live *fielddiff.Lookup // kapp.k14s.io/original (nil when absent) and the live object
}

func findAppliers(os []owner, rs *rulesets.Ruleset, obj applierObject) appliers {
	a := appliers{evidence: map[string]string{}}
	entry := func(names ...string) string { // the manager of the first of names with an entry of its own
		for _, n := range names {
			for _, o := range os {
				if m, ok := rulesets.FindManager(rs.Appliers, o.Manager); ok && m.Name == n && o.Subresource == "" {
					return o.Manager
				}
			}
		}
		return ""
	}
	kappApplied := false
	if _, ok := obj.annotations[kappconv.Original]; ok {
		if m := entry("kapp", "kapp-controller"); m != "" {
			a.main, kappApplied = m, true
			a.evidence[m] = "kapp's " + kappconv.Original + " annotation and its managedFields entry"
		}
	}
	if _, ok := obj.annotations[lastApplied]; ok && a.main == "" {
		if m := entry("kubectl-client-side-apply"); m != "" {
			a.main = m
			a.evidence[m] = "kubectl's " + lastApplied + " annotation and its managedFields entry"
		}
	}
	if a.main == "" {
		bestN := -1
		for _, o := range os {
			if _, ok := rulesets.FindManager(rs.Appliers, o.Manager); !ok || o.Subresource != "" {
				continue
			}
			if n := o.fields.Size(); n > bestN || (n == bestN && o.Manager < a.main) {
				a.main, bestN = o.Manager, n
			}
		}
	}
	var declared *fieldpath.Set
	total := -1 // not known yet
	declaredTotal := func() int {
		if total < 0 {
			total = 0
			if declared = obj.declared(); declared != nil {
				total = declared.Size()
			}
		}
		return total
	}
	shareMain, bestShare := "", 0
	for _, o := range os {
		if o.Subresource != "" || a.has(o.Manager) {
			continue
		}
		m, known := rulesets.FindManager(rs.Appliers, o.Manager)
		_, human := rulesets.FindManager(rs.Humans, o.Manager)
		switch {
		case known && (!human || o.Manager == a.main):
			// kubectl's managers are on both lists: the applier when they applied the most,
			// else a person applying by hand over another tool's object
			a.evidence[o.Manager] = "a known applier: " + m.Source
		case !known && !human && declaredTotal() > 0:
			// Measured on a Deployment kapp took over from a Helm-like tool nobody listed
			// (fixtures/adopt-helm): the earlier applier keeps every field kapp's update left
			// unchanged, 8 of the 9 declared. A manager that rewrote a value kapp applied is
			// not an applier however much it owns: it changed the manifest's value.
			n := o.fields.Intersection(declared).Size()
			if 2*n <= total || kappApplied && rewrote(o, obj, declared) {
				continue
			}
			a.evidence[o.Manager] = fmt.Sprintf("owns %d of the %d fields the manifest declares: the manifest's applier", n, total)
			if n > bestShare || n == bestShare && o.Manager < shareMain {
				shareMain, bestShare = o.Manager, n
			}
		}
	}
	if a.main == "" {
		a.main = shareMain
	}
	return a
}

// rewrote reports whether o owns a declared field whose live value is not what kapp sent
// (kapp.k14s.io/original holds the field).
func rewrote(o owner, obj applierObject, declared *fieldpath.Set) bool {
	if obj.sent == nil || obj.live == nil {
		return false
	}
	found := false
	o.fields.Leaves().Intersection(declared).Iterate(func(p fieldpath.Path) {
		if found {
			return
		}
		sv, ok := obj.sent.GetDeclared(fielddiff.Path(p))
		if !ok {
			return
		}
		lv, ok := obj.live.Get(fielddiff.Path(p))
		found = !ok || !fielddiff.Equal(sv, lv)
	})
	return found
}

func (a appliers) has(manager string) bool {
	_, ok := a.evidence[manager]
	return ok
}
