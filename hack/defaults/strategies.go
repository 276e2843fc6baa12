package main

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	daemonsetregistry "k8s.io/kubernetes/pkg/registry/apps/daemonset"
	deploymentregistry "k8s.io/kubernetes/pkg/registry/apps/deployment"
	replicasetregistry "k8s.io/kubernetes/pkg/registry/apps/replicaset"
	statefulsetregistry "k8s.io/kubernetes/pkg/registry/apps/statefulset"
	cronjobregistry "k8s.io/kubernetes/pkg/registry/batch/cronjob"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	leaseregistry "k8s.io/kubernetes/pkg/registry/coordination/lease"
	namespaceregistry "k8s.io/kubernetes/pkg/registry/core/namespace"
	persistentvolumeclaimregistry "k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
	podtemplateregistry "k8s.io/kubernetes/pkg/registry/core/podtemplate"
	replicationcontrollerregistry "k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	serviceaccountregistry "k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	csidriverregistry "k8s.io/kubernetes/pkg/registry/storage/csidriver"
)

// strategy is a registry strategy of the linked k8s.io/kubernetes, of which the API server runs
// PrepareForCreate on every create after decoding and defaulting.
type strategy struct {
	resource string // the resource it serves
	pkg      string // its package in k8s.io/kubernetes
	s        interface {
		PrepareForCreate(context.Context, runtime.Object)
	}
}

// createStrategies are the strategies classify runs (generator/classify/strategies.go: the ones
// whose PrepareForCreate sets or removes fields a manifest declares), here each version's real
// ones: this program is a module of its own per version and may link the API server's storage.
var createStrategies = map[schema.GroupKind]strategy{
	{Kind: "Pod"}:                                 {"pods", "pkg/registry/core/pod", podregistry.Strategy},
	{Kind: "PodTemplate"}:                         {"podtemplates", "pkg/registry/core/podtemplate", podtemplateregistry.Strategy},
	{Kind: "ReplicationController"}:               {"replicationcontrollers", "pkg/registry/core/replicationcontroller", replicationcontrollerregistry.Strategy},
	{Kind: "Namespace"}:                           {"namespaces", "pkg/registry/core/namespace", namespaceregistry.Strategy},
	{Kind: "PersistentVolumeClaim"}:               {"persistentvolumeclaims", "pkg/registry/core/persistentvolumeclaim", persistentvolumeclaimregistry.Strategy},
	{Kind: "ServiceAccount"}:                      {"serviceaccounts", "pkg/registry/core/serviceaccount", serviceaccountregistry.Strategy},
	{Group: "apps", Kind: "Deployment"}:           {"deployments", "pkg/registry/apps/deployment", deploymentregistry.Strategy},
	{Group: "apps", Kind: "ReplicaSet"}:           {"replicasets", "pkg/registry/apps/replicaset", replicasetregistry.Strategy},
	{Group: "apps", Kind: "StatefulSet"}:          {"statefulsets", "pkg/registry/apps/statefulset", statefulsetregistry.Strategy},
	{Group: "apps", Kind: "DaemonSet"}:            {"daemonsets", "pkg/registry/apps/daemonset", daemonsetregistry.Strategy},
	{Group: "batch", Kind: "Job"}:                 {"jobs", "pkg/registry/batch/job", jobregistry.Strategy},
	{Group: "batch", Kind: "CronJob"}:             {"cronjobs", "pkg/registry/batch/cronjob", cronjobregistry.Strategy},
	{Group: "coordination.k8s.io", Kind: "Lease"}: {"leases", "pkg/registry/coordination/lease", leaseregistry.Strategy},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:  {"csidrivers", "pkg/registry/storage/csidriver", csidriverregistry.Strategy},
}
