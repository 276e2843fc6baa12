package argocd

import (
	"slices"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/hook"
	resourceutil "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/resource"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Unpaired are the objects Argo CD shows OutOfSync that no pair holds, as check's kapp target
// names them (pending-create, pending-delete): a desired object with no live counterpart (Argo
// CD: Missing, the next sync creates it), and a live object with no desired counterpart that an
// Application tracks (Argo CD: requires pruning), one tracking a paired object or one s holds. A
// live object is the Application's when its tracking id names it and the object itself
// (controller/state.go isSelfReferencedObj: a tracking id a controller copied onto its own object
// names the original).
//
// Both are changes made in Git, warnings as on the kapp target, failing as g says
// (FailOnCreate, FailOnDelete); a pending create whose object is live in another namespace fails
// whatever g says (most likely a wrong -n or capture), and where it names -n that live object is
// no pending delete. A manifest carrying a hook annotation
// (hookOf: a hook, a Skip, an unknown hook type have no sync status) is no create of the sync. A
// live object a sync never deletes fails on no flag: gitops-engine's pruneObject skips it unless
// the sync prunes (spec.syncPolicy.automated.prune, argocd app sync --prune) and its
// argocd.argoproj.io/sync-options annotation, else the Application's sync options, hold no
// Prune=false. A live hook has no sync status: it is not named.
func Unpaired(set *pair.Set, rep *classify.Report, s Settings, g verdict.Gate) ([]verdict.Finding, error) {
	apps := TrackedApps(rep)
	holds := func(tracked string) bool {
		return slices.Contains(apps, tracked) || slices.ContainsFunc(s.ignoresOf, func(a appRef) bool {
			return a != (appRef{}) && a.names(tracked, s.controlPlaneNamespace())
		})
	}
	var out []verdict.Finding
	unpaired := verdict.UnpairedOf(set)
	for i, u := range unpaired {
		f := verdict.Finding{Kind: verdict.KindPendingCreate, Resource: u.Resource, Fails: g.FailOnCreate, Evidence: missing}
		o, err := set.Created[i].Object() // UnpairedOf lists set.Created, in order
		if err != nil {
			return nil, err
		}
		if how := hookOf(o.Unstructured); how != "" {
			f.Fails, f.Evidence = false, "no live counterpart, a hook: "+how+"; it has no sync status, so the Application is not OutOfSync for it"
		}
		if u.Hint != "" {
			f.Fails, f.Evidence = true, "no live counterpart: Argo CD shows it Missing (OutOfSync) and a sync creates it; nothing was compared; "+u.Hint
		}
		out = append(out, f)
	}
	elsewhere := verdict.LiveElsewhere(unpaired) // a wrong -n: the pending create's hint says it once
	for _, d := range slices.Concat(set.Deleted, set.LiveOnly) {
		if elsewhere[pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}] {
			continue
		}
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
		f := verdict.Finding{Kind: verdict.KindPendingDelete, Resource: pair.Identity{Group: gvk.Group, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()}, Fails: g.FailOnDelete,
			Evidence: "a live object Application " + inst.ApplicationName + " tracks (its argocd.argoproj.io/tracking-id names it) with no desired counterpart: a change made in Git; Argo CD shows it OutOfSync, requiring pruning"}
		if resourceutil.HasAnnotationOption(o.Unstructured, common.AnnotationCompareOptions, "IgnoreExtraneous") {
			f.Evidence += "; its annotation " + common.AnnotationCompareOptions + " holds IgnoreExtraneous, so the Application is not OutOfSync for it"
		}
		if where := s.noPrune(o.Unstructured, inst.ApplicationName); where != "" {
			f.Fails = false
			f.Evidence += "; " + where + " Prune=false, so no sync deletes it (gitops-engine skips it: ignored (no prune)): delete it by hand, or drop Prune=false and sync with pruning"
		} else {
			f.Evidence += pruned
		}
		out = append(out, f)
	}
	return out, nil
}

// missing says what Argo CD does with a desired object Git adds, and what to do about it.
const missing = "no live counterpart: a change made in Git, Argo CD shows it Missing (OutOfSync) and creates it at the next sync; nothing could be compared (no live object yet), " +
	"so the ignores cannot be judged on what the API server sets on it: after the sync, capture the live objects again (rebasegen capture --argocd-app) " +
	"and regenerate the ignores (rebasegen generate --target argocd), and check judges it then"

// pruned says when Argo CD deletes a live object Git removed (gitops-engine pruneObject).
const pruned = "; Argo CD deletes it only at a sync with pruning (spec.syncPolicy.automated.prune, or argocd app sync --prune), a sync without leaves it; " +
	"the ignores that take it alone can go at the regeneration after it was deleted"

// noPrune says where Prune=false is set that keeps every sync from deleting live, an object of
// Application tracked: its own argocd.argoproj.io/sync-options annotation, which Argo CD reads
// first, else the sync options of an Application read (gitops-engine isPruningDisabled, the
// default controller/sync.go takes from the sync operation's options); "" when neither does.
func (s Settings) noPrune(live *unstructured.Unstructured, tracked string) string {
	if v := resourceutil.GetAnnotationOptionValue(live, synccommon.AnnotationSyncOptions, synccommon.SyncOptionPrune); v != nil {
		if isFalse(v) {
			return "its annotation " + synccommon.AnnotationSyncOptions + " holds"
		}
		return ""
	}
	for ref, opts := range s.syncOpts {
		if ref.names(tracked, s.controlPlaneNamespace()) && isFalse(opts.GetOptionValue(synccommon.SyncOptionPrune)) {
			return "Application " + ref.name + "'s spec.syncPolicy.syncOptions hold"
		}
	}
	return ""
}

func isFalse(v *string) bool { return v != nil && *v == synccommon.SyncValueFalse }
