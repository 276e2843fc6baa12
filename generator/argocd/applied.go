package argocd

import (
	"bytes"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// Argo CD's applier: the field manager of its controller's server-side apply, and the annotation
// its client-side apply (kubectl's) writes.
const (
	argoManager = "argocd-controller"
	lastApplied = "kubectl.kubernetes.io/last-applied-configuration"
)

// lastSynced says why the live value at p (by key) is the one Argo CD's last sync applied, so a
// manifest declaring another is a change made in Git since (pending), not on the cluster (drift),
// as kapp.k14s.io/original tells them apart on the kapp target: the last applied configuration
// (client-side apply) holds the live value, or argocd-controller's Apply entry of managedFields
// owns the field (server-side apply: a change on the cluster moves the field to its own manager).
// "" when neither does.
func lastSynced(live *unstructured.Unstructured, p fielddiff.Path) string {
	have, ok := p.Get(live.Object)
	if !ok {
		return ""
	}
	if raw := live.GetAnnotations()[lastApplied]; raw != "" {
		var applied map[string]any
		if json.Unmarshal([]byte(raw), &applied) == nil {
			if v, ok := p.GetDeclared(applied); ok && fielddiff.Equal(v, have) {
				return "the live value is the one Argo CD last applied (" + lastApplied + ")"
			}
		}
	}
	for _, mf := range live.GetManagedFields() {
		if mf.Manager != argoManager || mf.Operation != "Apply" || mf.FieldsV1 == nil || mf.Subresource != "" {
			continue
		}
		set := fieldpath.NewSet()
		if set.FromJSON(bytes.NewReader(mf.FieldsV1.Raw)) == nil && set.Has(fieldpath.Path(p)) {
			return "the live value is the one Argo CD last applied (" + argoManager + "'s Apply entry of managedFields owns the field)"
		}
	}
	return ""
}
