package classify

import (
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/rulesets"
)

// appliers are the field managers that applied the desired state. A field they own is what a
// manifest said, so a differing value there is a change made in Git (or a server default),
// never a controller's: ruling it "from the cluster" would hide that change. Known appliers
// come from rulesets/managers.yaml; beyond the list, a manager that is not a tool people use by
// hand and owns most of the fields the manifest declares is one too (a GitOps tool nobody
// listed, e.g. Argo CD's client-side apply as `argocd` before it was).
type appliers struct {
	main     string            // the applier shown for the resource: the known one owning the most fields
	evidence map[string]string // every applier, with why it is one
}

func findAppliers(os []owner, rs *rulesets.Ruleset, declared *fieldpath.Set) appliers {
	a := appliers{evidence: map[string]string{}}
	bestN := -1
	for _, o := range os {
		if _, ok := rulesets.FindManager(rs.Appliers, o.Manager); !ok || o.Subresource != "" {
			continue
		}
		if n := o.fields.Size(); n > bestN || (n == bestN && o.Manager < a.main) {
			a.main, bestN = o.Manager, n
		}
	}
	total := 0
	if declared != nil {
		total = declared.Size()
	}
	for _, o := range os {
		if o.Subresource != "" {
			continue
		}
		m, known := rulesets.FindManager(rs.Appliers, o.Manager)
		_, human := rulesets.FindManager(rs.Humans, o.Manager)
		switch {
		case known && (!human || o.Manager == a.main):
			// kubectl's managers are on both lists: the applier when they applied the most,
			// else a person applying by hand over another tool's object
			a.evidence[o.Manager] = "a known applier: " + m.Source
		case !known && !human && total > 0:
			// Measured on a Deployment kapp took over from a Helm-like tool nobody listed
			// (fixtures/adopt-helm): the earlier applier keeps every field kapp's update left
			// unchanged, 8 of the 9 declared.
			if n := o.fields.Intersection(declared).Size(); 2*n > total {
				a.evidence[o.Manager] = fmt.Sprintf("owns %d of the %d fields the manifest declares: the manifest's applier", n, total)
			}
		}
	}
	return a
}

func (a appliers) has(manager string) bool {
	_, ok := a.evidence[manager]
	return ok
}
