package classify

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// ScaleTarget returns the resource an autoscaler sets spec.replicas of, in namespace (the
// autoscaler's, as the caller resolved it), and false for an object that is not an autoscaler or
// names no target. The one answer for classify and lint:
//   - a HorizontalPodAutoscaler scales its scaleTargetRef; the HPA controller finds the target
//     by the group of scaleTargetRef.apiVersion and its kind (k8s.io/kubernetes
//     pkg/controller/podautoscaler/horizontal.go: schema.ParseGroupVersion, then RESTMappings of the GroupKind).
//   - a KEDA ScaledObject counts too: KEDA creates an HPA (keda-hpa-NAME) for it at runtime with
//     the same scaleTargetRef, so the target's spec.replicas is the HPA controller's just the
//     same; scaleTargetRef.apiVersion defaults to apps/v1 and kind to Deployment
//     (keda.sh/docs/2.x/reference/scaledobject-spec). Ignoring it would classify the replica
//     count KEDA sets as drift.
func ScaleTarget(o *unstructured.Unstructured, namespace string) (pair.Identity, bool) {
	var apiVersion, kind string
	switch o.GroupVersionKind().GroupKind() {
	case schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:
	case schema.GroupKind{Group: "keda.sh", Kind: "ScaledObject"}:
		apiVersion, kind = "apps/v1", "Deployment"
	default:
		return pair.Identity{}, false
	}
	ref, _, _ := unstructured.NestedMap(o.Object, "spec", "scaleTargetRef") // no spec: no target
	if v, _ := ref["apiVersion"].(string); v != "" {
		apiVersion = v
	}
	if k, _ := ref["kind"].(string); k != "" {
		kind = k
	}
	name, _ := ref["name"].(string)
	gv, _ := schema.ParseGroupVersion(apiVersion) // "v1" is the core group
	return pair.Identity{Group: gv.Group, Kind: kind, Namespace: namespace, Name: name}, name != "" && kind != ""
}

// hpaTargets maps what the inputs' autoscalers scale (ScaleTarget) to the autoscaler's
// "namespace/name". Each autoscaler's scaleTargetRef alone is decoded (load.Doc.Field): its
// apiVersion, kind, name and namespace are the Doc's, as its decoded object has them.
func hpaTargets(set *pair.Set) (map[pair.Identity]string, error) {
	out := map[pair.Identity]string{}
	var docs []load.Doc
	for _, p := range set.Pairs {
		docs = append(docs, p.Desired, p.Live)
	}
	docs = append(append(append(docs, set.Created...), set.Deleted...), set.LiveOnly...)
	for _, d := range docs {
		if d.Kind != "HorizontalPodAutoscaler" && d.Kind != "ScaledObject" {
			continue
		}
		ref, found, err := d.Field("spec", "scaleTargetRef")
		if err != nil {
			return nil, err
		}
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": d.APIVersion, "kind": d.Kind}}
		if ref, ok := ref.(map[string]any); found && ok {
			o.Object["spec"] = map[string]any{"scaleTargetRef": ref}
		}
		ns := d.Namespace
		if ns == "" {
			ns = "default"
		}
		if id, ok := ScaleTarget(o, ns); ok {
			out[id] = ns + "/" + d.Name
		}
	}
	return out, nil
}

// autoscaled reports whether an autoscaler among the inputs (desired, live or deleted: ScaleTarget)
// targets the resource: only then is a scale-subresource owner of its fields a controller's.
func (c *classifier) autoscaled(id pair.Identity) bool {
	_, ok := c.hpaTargets[id]
	return ok
}

// autoscaledReplicas makes f, spec.replicas of id, the autoscaler hpa's (hpaTargets).
func autoscaledReplicas(f *Finding, id pair.Identity, hpa string, declared bool) {
	f.Class, f.Owner = Controller, "horizontal-pod-autoscaler"
	f.Evidence = fmt.Sprintf("HorizontalPodAutoscaler %s targets this %s and sets spec.replicas", hpa, id.Kind)
	if declared {
		f.Warning = "the manifest declares spec.replicas but the HorizontalPodAutoscaler rewrites it: remove it from the manifest"
	}
}

// replicasAsDeclared is the finding for spec.replicas of a resource an autoscaler among the
// inputs targets (hpaTargets) when the live value is the manifest's: a capture taken after a
// deploy reset it and before the autoscaler scaled it again. The autoscaler writes it all the
// same, so the rule copying it from the live object is still needed, and a change made in Git
// there is the autoscaler's to undo, not hidden by that rule. The objects agree: kapp's engine
// alone says whether kapp updates it (KappView).
func (c *classifier) replicasAsDeclared(fc fieldContext, deltas []fielddiff.Delta) (Finding, bool) {
	hpa, ok := c.hpaTargets[fc.id]
	if !ok {
		return Finding{}, false
	}
	p := fielddiff.FromFields([]string{"spec", "replicas"})
	for _, d := range deltas {
		if d.Path.String() == p.String() {
			return Finding{}, false // they differ: the field's classification says why
		}
	}
	want, declared, _ := unstructured.NestedFieldNoCopy(fc.desired.Object, "spec", "replicas")
	got, stored, _ := unstructured.NestedFieldNoCopy(fc.live.Object, "spec", "replicas")
	if !declared || !stored {
		return Finding{}, false
	}
	f := Finding{Path: p, Change: fielddiff.Same, Desired: want, Live: got, KappView: true}
	autoscaledReplicas(&f, fc.id, hpa, true)
	f.Evidence += "; the live value is the manifest's right now (a deploy reset it, the autoscaler has not scaled it since)"
	return f, true
}
