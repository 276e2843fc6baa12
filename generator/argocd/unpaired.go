package argocd

import (
	"slices"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/hook"
	resourceutil "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/resource"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/util/argo"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Unpaired are the objects Argo CD shows OutOfSync that no pair holds, as check's kapp target
// names them (pending-create, pending-delete; nothing was compared for them, so they fail): a
// desired object with no live counterpart (Argo CD: Missing, a sync creates it), and a live
// object with no desired counterpart that an Application tracks (Argo CD: requires pruning), one
// tracking a paired object or one s holds. A live object is the Application's when its tracking id names it and the object
// itself (controller/state.go isSelfReferencedObj: a tracking id a controller copied onto its
// own object names the original).
//
// Those that leave the Application Synced are warnings, as Argo CD's controller sets the
// Application's sync status (controller/state.go CompareAppState): a manifest carrying a hook
// annotation (hookOf: a hook, a Skip, an unknown hook type have no sync status); a live object
// requiring pruning whose compare options hold IgnoreExtraneous (the resource shows OutOfSync,
// the Application does not). A live hook has no sync status either: it is not named.
func Unpaired(set *pair.Set, rep *classify.Report, s Settings) ([]verdict.Finding, error) {
	apps := TrackedApps(rep)
	holds := func(tracked string) bool {
		return slices.Contains(apps, tracked) || slices.ContainsFunc(s.ignoresOf, func(a appRef) bool {
			return a != (appRef{}) && a.names(tracked, s.controlPlaneNamespace())
		})
	}
	var out []verdict.Finding
	for i, u := range verdict.UnpairedOf(set) {
		f := verdict.Finding{Kind: verdict.KindPendingCreate, Resource: u.Resource, Fails: true,
			Evidence: "no live counterpart: Argo CD shows it Missing (OutOfSync) and a sync creates it; nothing was compared"}
		o, err := set.Created[i].Object() // UnpairedOf lists set.Created, in order
		if err != nil {
			return nil, err
		}
		if how := hookOf(o.Unstructured); how != "" {
			f.Fails, f.Evidence = false, "no live counterpart, a hook: "+how+"; it has no sync status, so the Application is not OutOfSync for it"
		}
		if u.Hint != "" {
			f.Evidence += " (" + u.Hint + ")"
		}
		out = append(out, f)
	}
	for _, d := range slices.Concat(set.Deleted, set.LiveOnly) {
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		inst := argo.NewResourceTracking().GetAppInstance(o.Unstructured, trackingMethod, "")
		if inst == nil || !holds(inst.ApplicationName) || hook.IsHook(o.Unstructured) {
			continue
		}
		gvk := o.GroupVersionKind()
		if inst.Group != gvk.Group || inst.Kind != gvk.Kind || inst.Name != o.GetName() || o.GetNamespace() != "" && inst.Namespace != o.GetNamespace() {
			continue
		}
		f := verdict.Finding{Kind: verdict.KindPendingDelete, Resource: pair.Identity{Group: gvk.Group, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()}, Fails: true,
			Evidence: "a live object Application " + inst.ApplicationName + " tracks (its argocd.argoproj.io/tracking-id names it) with no desired counterpart: Argo CD shows it OutOfSync, requiring pruning"}
		if resourceutil.HasAnnotationOption(o.Unstructured, common.AnnotationCompareOptions, "IgnoreExtraneous") {
			f.Fails = false
			f.Evidence += "; its annotation " + common.AnnotationCompareOptions + " holds IgnoreExtraneous, so the Application is not OutOfSync for it (a sync with pruning still deletes it)"
		}
		out = append(out, f)
	}
	return out, nil
}
