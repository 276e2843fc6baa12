package classify

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// serviceUpdateRefused says why the API server refuses kapp's in-place update of a Service, as
// evidence to append: the server's own validation of the update (k8s.io/kubernetes
// pkg/apis/core/validation ValidateServiceUpdate) fails on the object kapp sends against the live
// one. Its rules are cross-field (a headless Service made NodePort or LoadBalancer keeps
// clusterIP None, which those types refuse: newcomer11 N11-5), which rulesets/immutable.yaml
// cannot list. An error the update kapp last applied (kapp.k14s.io/original) meets as well is
// left out: this deploy's change made in Git is not what the server refuses then, and the
// object sent is rebuilt here, not taken from kapp.
func serviceUpdateRefused(fc fieldContext) (string, bool) {
	if fc.id.Group != "" || fc.id.Kind != "Service" || fc.desired.GetAPIVersion() != "v1" {
		return "", false
	}
	old, ok := internalService(fc.live.Object, nil, false)
	if !ok {
		return "", false
	}
	errs, replaceable := serviceUpdateErrors(fc.desired.Object, fc.live.Object, old)
	if len(errs) == 0 {
		return "", false
	}
	if fc.sent != nil {
		before, _ := serviceUpdateErrors(fc.sent, fc.live.Object, old)
		errs = slices.DeleteFunc(errs, func(e string) bool { return slices.Contains(before, e) })
	}
	if len(errs) == 0 {
		return "", false
	}
	remedy := "change the manifest so that the Service it declares is valid (the server refuses to create it as well, so replacing the Service does not help)"
	if replaceable {
		remedy = fmt.Sprintf("annotate the manifest with %s: fallback-on-replace (kapp then deletes and recreates the Service), or change it so the update is valid", kappconv.UpdateStrategy)
	}
	return fmt.Sprintf("; kapp's deploy fails here: the API server refuses kapp's update of the Service (k8s.io/kubernetes %s pkg/apis/core/validation ValidateServiceUpdate): %s; %s", kappconv.Kubernetes, escape.Text(strings.Join(errs, "; ")), remedy), true
}

// serviceUpdateErrors are the validation errors of the update sending manifest over live (old,
// its internal form): manifest as kapp sends it and the server prepares it before validating.
// nil where the manifest does not decode (the defaulting stage says so) or an ExternalName
// Service is on either side (the server's type-dependent dropping of fields, not copied here,
// decides those updates). replaceable: the server would create the Service the manifest
// declares (ValidateServiceCreate), so replacing it, as kapp's fallback-on-replace does, works.
func serviceUpdateErrors(manifest, live map[string]any, old *api.Service) (errs []string, replaceable bool) {
	// kapp's built-in rebase rule: clusterIP and healthCheckNodePort copied from the live object
	// where the manifest has none (carvel.dev/kapp v0.66.0 pkg/kapp/config/default.go)
	sent := runtime.DeepCopyJSON(manifest)
	for _, f := range []string{"clusterIP", "healthCheckNodePort"} {
		if _, set, _ := unstructured.NestedFieldNoCopy(sent, "spec", f); set {
			continue
		}
		if v, set, _ := unstructured.NestedFieldNoCopy(live, "spec", f); set {
			_ = unstructured.SetNestedField(sent, runtime.DeepCopyJSONValue(v), "spec", f)
		}
	}
	nw, ok := internalService(sent, old, true)
	if !ok || nw.Spec.Type == api.ServiceTypeExternalName || old.Spec.Type == api.ServiceTypeExternalName {
		return nil, false
	}
	for _, e := range corevalidation.ValidateServiceUpdate(nw, old) {
		errs = append(errs, e.Error())
	}
	if created, ok := internalService(manifest, nil, true); ok && len(errs) > 0 {
		created.Name, created.Namespace = old.Name, old.Namespace
		replaceable = len(corevalidation.ValidateServiceCreate(created)) == 0
	}
	return errs, replaceable
}

// internalService decodes a v1 Service into the API server's internal type, defaulted as the
// server defaults a request when defaulted; with old, prepared as the Service storage's
// beginUpdate prepares an update before its validation (k8s.io/kubernetes
// pkg/registry/core/service/storage/storage.go patchAllocatedValues, normalizeClusterIPs; the
// IP families initIPFamilyFields keeps from the old object) and its strategy's PrepareForUpdate
// (dropTypeDependentFields), whose packages link the API server's storage.
func internalService(obj map[string]any, old *api.Service, defaulted bool) (*api.Service, bool) {
	var v1 corev1.Service
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &v1); err != nil {
		return nil, false
	}
	if defaulted {
		legacyscheme.Scheme.Default(&v1)
	}
	var svc api.Service
	if err := legacyscheme.Scheme.Convert(&v1, &svc, nil); err != nil {
		return nil, false
	}
	if old == nil { // a create: the plural from the singular (normalizeClusterIPs)
		if svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
		return &svc, true
	}
	if needsClusterIP(old) && needsClusterIP(&svc) {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = old.Spec.ClusterIPs
		}
		if len(svc.Spec.IPFamilies) == 0 {
			svc.Spec.IPFamilies = old.Spec.IPFamilies
		}
		if svc.Spec.IPFamilyPolicy == nil {
			svc.Spec.IPFamilyPolicy = old.Spec.IPFamilyPolicy
		}
	}
	if len(old.Spec.ClusterIPs) > 0 && len(svc.Spec.ClusterIPs) == 0 && old.Spec.ClusterIP == svc.Spec.ClusterIP {
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	}
	if needsNodePort(old) && needsNodePort(&svc) {
		nodePorts := map[string]int32{}
		for _, p := range old.Spec.Ports {
			nodePorts[p.Name] = p.NodePort
		}
		for i := range svc.Spec.Ports {
			if svc.Spec.Ports[i].NodePort == 0 && !slices.ContainsFunc(svc.Spec.Ports, func(p api.ServicePort) bool {
				return p.NodePort != 0 && p.NodePort == nodePorts[svc.Spec.Ports[i].Name]
			}) {
				svc.Spec.Ports[i].NodePort = nodePorts[svc.Spec.Ports[i].Name]
			}
		}
	}
	if svc.Spec.HealthCheckNodePort == 0 && needsHCNodePort(old) && needsHCNodePort(&svc) {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
	dropTypeDependentFields(&svc, old)
	// metadata is not what this judges: the server's own (creationTimestamp, uid, resourceVersion)
	svc.ObjectMeta = *old.ObjectMeta.DeepCopy()
	svc.Status = old.Status
	return &svc, true
}

// needsClusterIP, needsNodePort and needsHCNodePort are pkg/registry/core/service/strategy.go's.
func needsClusterIP(svc *api.Service) bool {
	return svc.Spec.Type != api.ServiceTypeExternalName
}

func needsNodePort(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeNodePort || svc.Spec.Type == api.ServiceTypeLoadBalancer
}

func needsHCNodePort(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == api.ServiceExternalTrafficPolicyLocal
}
