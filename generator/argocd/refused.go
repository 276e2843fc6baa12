package argocd

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The wording classify gives a change made in Git the API server refuses on update (its
// evidence, Finding.Blocks), written for kapp: what is refused, then kapp's remedies.
const (
	kappRefuses = "; kapp's deploy fails here: "
	kappRemedy  = "; annotate the manifest with "
)

// syncOptions is the annotation of Argo CD's per-resource sync options.
const syncOptions = "argocd.argoproj.io/sync-options"

// refusal says, for Argo CD, why its sync of a change made in Git fails: the API server refuses
// the update kubectl apply (or server-side apply) sends, as it refuses kapp's (probe16 P16-7).
// reason is classify's evidence of a change that Blocks; "" when the manifest has Argo CD
// replace the object (the Replace=true sync option), which the server does not refuse.
func refusal(desired *unstructured.Unstructured, reason string) (without, why string) {
	for _, o := range strings.Split(desired.GetAnnotations()[syncOptions], ",") {
		if strings.TrimSpace(o) == "Replace=true" {
			return reason, ""
		}
	}
	i := strings.Index(reason, kappRefuses)
	if i < 0 {
		return reason, "; Argo CD's sync fails here: the API server refuses the update of this field"
	}
	detail := reason[i+len(kappRefuses):]
	if j := strings.Index(detail, kappRemedy); j >= 0 {
		detail = detail[:j]
	}
	detail = strings.ReplaceAll(detail, "refuses kapp's update", "refuses the update")
	return reason[:i], "; Argo CD's sync fails here: " + detail + "; add " + syncOptions + ": Replace=true to the manifest's annotations (Argo CD then replaces the object), or give the object a new name"
}
