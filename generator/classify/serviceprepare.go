package classify

import (
	"slices"

	serviceapi "k8s.io/kubernetes/pkg/api/service"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// dropTypeDependentFields is the Service strategy's PrepareForUpdate (k8s.io/kubernetes v1.37.2
// pkg/registry/core/service/strategy.go), copied because its package links the API server's
// storage: the fields the new type does not use are wiped where the update left them as the old
// object holds them (kapp's built-in rule copies healthCheckNodePort from the live object, which
// a LoadBalancer made ClusterIP no longer uses), before the update is validated. The
// load-balancer status it clears is not validated.
func dropTypeDependentFields(newSvc, oldSvc *api.Service) {
	if needsClusterIP(oldSvc) && !needsClusterIP(newSvc) {
		if oldSvc.Spec.ClusterIP == newSvc.Spec.ClusterIP && slices.Equal(oldSvc.Spec.ClusterIPs, newSvc.Spec.ClusterIPs) {
			newSvc.Spec.ClusterIP, newSvc.Spec.ClusterIPs = "", nil
		}
		if slices.Equal(oldSvc.Spec.IPFamilies, newSvc.Spec.IPFamilies) {
			newSvc.Spec.IPFamilies = nil
		}
		if ipFamilyPolicy(oldSvc) == ipFamilyPolicy(newSvc) {
			newSvc.Spec.IPFamilyPolicy = nil
		}
	}
	if needsNodePort(oldSvc) && !needsNodePort(newSvc) && sameNodePorts(oldSvc, newSvc) {
		for i := range newSvc.Spec.Ports {
			newSvc.Spec.Ports[i].NodePort = 0
		}
	}
	if needsHCNodePort(oldSvc) && !needsHCNodePort(newSvc) && oldSvc.Spec.HealthCheckNodePort == newSvc.Spec.HealthCheckNodePort {
		newSvc.Spec.HealthCheckNodePort = 0
	}
	if oldSvc.Spec.Type == api.ServiceTypeLoadBalancer && newSvc.Spec.Type != api.ServiceTypeLoadBalancer {
		if o, n := oldSvc.Spec.AllocateLoadBalancerNodePorts, newSvc.Spec.AllocateLoadBalancerNodePorts; o != nil && n != nil && *o == *n {
			newSvc.Spec.AllocateLoadBalancerNodePorts = nil
		}
	}
	if oldSvc.Spec.Type == api.ServiceTypeLoadBalancer && newSvc.Spec.Type != api.ServiceTypeLoadBalancer && sameLoadBalancerClass(oldSvc, newSvc) {
		newSvc.Spec.LoadBalancerClass = nil
	}
	if serviceapi.ExternallyAccessible(oldSvc) && !serviceapi.ExternallyAccessible(newSvc) && oldSvc.Spec.ExternalTrafficPolicy == newSvc.Spec.ExternalTrafficPolicy {
		newSvc.Spec.ExternalTrafficPolicy = ""
	}
}

func ipFamilyPolicy(svc *api.Service) string {
	if svc.Spec.IPFamilyPolicy == nil {
		return ""
	}
	return string(*svc.Spec.IPFamilyPolicy)
}

// sameNodePorts: the update adds no node port the old object does not hold.
func sameNodePorts(oldSvc, newSvc *api.Service) bool {
	old := map[int32]bool{}
	for _, p := range oldSvc.Spec.Ports {
		old[p.NodePort] = true
	}
	return !slices.ContainsFunc(newSvc.Spec.Ports, func(p api.ServicePort) bool { return p.NodePort != 0 && !old[p.NodePort] })
}

func sameLoadBalancerClass(oldSvc, newSvc *api.Service) bool {
	o, n := oldSvc.Spec.LoadBalancerClass, newSvc.Spec.LoadBalancerClass
	return o == nil && n == nil || o != nil && n != nil && *o == *n
}
