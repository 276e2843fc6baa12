package argocd

import (
	"strings"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	resourceutil "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/internal/words"
)

// The wording classify gives a change made in Git the API server refuses on update (its
// evidence, Finding.Blocks), written for kapp: what is refused, then kapp's remedies, which
// start with one of kappRemedies.
const kappRefuses = "; kapp's deploy fails here: "

var kappRemedies = []string{"; annotate the manifest with ", "; change the manifest so that", "; change the CRD so that"}

// refusal says, for Argo CD, why its sync of a change made in Git fails: the API server refuses
// the update kubectl apply (or server-side apply) sends, as it refuses kapp's (probe16 P16-7).
// reason is classify's evidence of a change that Blocks; why is "" where Argo CD's sync deletes
// and recreates the object, which the update's refusal then does not stop.
//
// What the sync does is gitops-engine v3.6.1's pkg/sync/sync_context.go applyObject: with the
// sync option Replace=true (the manifest's or the live object's annotation) it runs kubectl
// replace, a PUT the server validates as it validates any update, so the change is refused all
// the same; with Force=true as well, kubectl replace --force, which deletes and creates the
// object. Without Replace=true, Force=true has kubectl apply --force delete and create the
// object when the server refuses the patch as invalid (k8s.io/kubectl pkg/cmd/apply/patcher.go),
// except under server-side apply, where force only takes over conflicting fields. A
// CustomResourceDefinition or Namespace is never replaced: Argo CD updates it instead, refused
// too; and kubectl apply --force deleting one deletes every custom resource of it (every object
// in it), which fails the gate as loudly as the refusal. Where the sync deletes and creates the
// object, the server's create validation of the manifest decides (classify.CreateRefused, as for
// kapp's replace): a manifest it refuses leaves the object deleted.
func refusal(desired, live *unstructured.Unstructured, reason string) (without, why string) {
	has := func(option string) bool {
		return resourceutil.HasAnnotationOption(desired, synccommon.AnnotationSyncOptions, option) ||
			live != nil && resourceutil.HasAnnotationOption(live, synccommon.AnnotationSyncOptions, option)
	}
	replace, force := has(synccommon.SyncOptionReplace), has(synccommon.SyncOptionForce)
	serverSide := resourceutil.HasAnnotationOption(desired, synccommon.AnnotationSyncOptions, synccommon.SyncOptionServerSideApply) &&
		!resourceutil.HasAnnotationOption(desired, synccommon.AnnotationSyncOptions, synccommon.SyncOptionDisableServerSideApply)
	gvk := desired.GroupVersionKind()
	container := gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition" || gvk.Group == "" && gvk.Kind == "Namespace"
	without, detail := reason, "the API server refuses the update of this field"
	if i := strings.Index(reason, kappRefuses); i >= 0 {
		without, detail = reason[:i], reason[i+len(kappRefuses):]
		for _, m := range kappRemedies {
			if j := strings.Index(detail, m); j >= 0 {
				detail = detail[:j]
			}
		}
		detail = strings.ReplaceAll(detail, "refuses kapp's update", "refuses the update")
	}
	switch {
	case force && !replace && !serverSide && container:
		lost := "custom resource of it"
		if gvk.Kind == "Namespace" {
			lost = "object in it"
		}
		return without, "; Argo CD's sync deletes and recreates the " + gvk.Kind + " here (its sync option Force=true has kubectl apply --force delete and create an object whose update is refused: " +
			detail + "), and deleting it deletes every " + lost + "; remove Force=true from " + synccommon.AnnotationSyncOptions + " and change the manifest so that the update is valid"
	case force && (replace || !serverSide) && !container:
		// the object is deleted, then the manifest created: the server's create validation judges it
		if validation, refused := classify.CreateRefused(desired, live); refused != "" {
			return without, "; Argo CD's sync fails here: its sync option Force=true has kubectl delete and create the " + gvk.Kind + " whose update is refused (" +
				detail + "), then the API server refuses to create the manifest's (" + validation + "): " + refused + "; the " + gvk.Kind +
				" stays deleted until a sync creates it: change the manifest so that the object is valid"
		}
		return reason, ""
	case container:
		return without, "; Argo CD's sync fails here: " + detail + " (Argo CD updates " + words.A(gvk.Kind) + " even under Replace=true); change the manifest so that the update is valid"
	}
	return without, "; Argo CD's sync fails here: " + detail + " (kubectl replace, under the sync option Replace=true alone, is an update the server refuses the same); add " +
		synccommon.AnnotationSyncOptions + ": Replace=true,Force=true to the manifest's annotations (Argo CD then deletes and recreates the object), or give the object a new name"
}
