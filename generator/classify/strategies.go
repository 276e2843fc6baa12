package classify

import (
	"context"
	"fmt"
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	jobutil "k8s.io/kubernetes/pkg/api/job"
	pvcutil "k8s.io/kubernetes/pkg/api/persistentvolumeclaim"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/features"
	daemonsetregistry "k8s.io/kubernetes/pkg/registry/apps/daemonset"
	deploymentregistry "k8s.io/kubernetes/pkg/registry/apps/deployment"
	statefulsetregistry "k8s.io/kubernetes/pkg/registry/apps/statefulset"
	cronjobregistry "k8s.io/kubernetes/pkg/registry/batch/cronjob"
	leaseregistry "k8s.io/kubernetes/pkg/registry/coordination/lease"
	podtemplateregistry "k8s.io/kubernetes/pkg/registry/core/podtemplate"
	csidriverregistry "k8s.io/kubernetes/pkg/registry/storage/csidriver"
)

// createStrategy is a registry strategy's PrepareForCreate, which the API server runs on every
// create after decoding and defaulting (k8s.io/apiserver registry/rest BeforeCreate).
type createStrategy struct {
	resource string // the resource the strategy serves
	pkg      string // the strategy's package in k8s.io/kubernetes
	prepare  func(context.Context, runtime.Object)
}

// createStrategies are the strategies whose PrepareForCreate sets or removes fields a manifest
// declares: Pod-level resources, pod affinity and topology spread label keys, AppArmor fields from
// annotations (pods), the job-name labels (Jobs), the kubernetes finalizer (Namespaces),
// templateGeneration (DaemonSets), the data source pair (PVCs), secret references' extra fields
// (ServiceAccounts), and fields of feature gates that are off by default (every strategy here, pod
// templates included). Left out: the strategies that only reset status and generation,
// CertificateSigningRequest's (the requester's identity), LimitRange's (a random name for a
// nameless object) and EndpointSlice's (the request's API version). What a strategy derives from
// the object's uid (a Job's controller-uid selector and labels) comes out empty offline: it never
// matches a live value, so the calculated-field ruleset explains it.
//
// Where the strategy's package links the API server's storage (k8s.io/apiserver's
// registry/generic: the etcd client, grpc, otel), which rebasegen and every controller linking
// compare would carry for a few lines of code, prepare calls the helpers its PrepareForCreate
// calls, and copies what it does in unexported code; TestCreateStrategiesAsUpstream runs the
// real strategies against them. Status and generation, which every strategy resets, are left.
var createStrategies = map[schema.GroupKind]createStrategy{
	{Kind: "Pod"}:                                 {"pods", "pkg/registry/core/pod", preparePod},
	{Kind: "PodTemplate"}:                         {"podtemplates", "pkg/registry/core/podtemplate", podtemplateregistry.Strategy.PrepareForCreate},
	{Kind: "ReplicationController"}:               {"replicationcontrollers", "pkg/registry/core/replicationcontroller", prepareReplicationController},
	{Kind: "Namespace"}:                           {"namespaces", "pkg/registry/core/namespace", prepareNamespace},
	{Kind: "PersistentVolumeClaim"}:               {"persistentvolumeclaims", "pkg/registry/core/persistentvolumeclaim", preparePersistentVolumeClaim},
	{Kind: "ServiceAccount"}:                      {"serviceaccounts", "pkg/registry/core/serviceaccount", prepareServiceAccount},
	{Group: "apps", Kind: "Deployment"}:           {"deployments", "pkg/registry/apps/deployment", deploymentregistry.Strategy.PrepareForCreate},
	{Group: "apps", Kind: "ReplicaSet"}:           {"replicasets", "pkg/registry/apps/replicaset", prepareReplicaSet},
	{Group: "apps", Kind: "StatefulSet"}:          {"statefulsets", "pkg/registry/apps/statefulset", statefulsetregistry.Strategy.PrepareForCreate},
	{Group: "apps", Kind: "DaemonSet"}:            {"daemonsets", "pkg/registry/apps/daemonset", daemonsetregistry.Strategy.PrepareForCreate},
	{Group: "batch", Kind: "Job"}:                 {"jobs", "pkg/registry/batch/job", prepareJob},
	{Group: "batch", Kind: "CronJob"}:             {"cronjobs", "pkg/registry/batch/cronjob", cronjobregistry.Strategy.PrepareForCreate},
	{Group: "coordination.k8s.io", Kind: "Lease"}: {"leases", "pkg/registry/coordination/lease", leaseregistry.Strategy.PrepareForCreate},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:  {"csidrivers", "pkg/registry/storage/csidriver", csidriverregistry.Strategy.PrepareForCreate},
}

// run runs the strategy's PrepareForCreate as the API server does, without a request (no user, no
// request info in the context). The server recovers a panic in a handler into an internal error;
// so does this.
func (s createStrategy) run(obj runtime.Object) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PrepareForCreate of k8s.io/kubernetes %s failed: %v", s.pkg, r)
		}
	}()
	s.prepare(context.Background(), obj)
	return nil
}

// podStrategy.PrepareForCreate (pkg/registry/core/pod/strategy.go).
func preparePod(_ context.Context, obj runtime.Object) {
	pod := obj.(*api.Pod)
	podutil.DropDisabledPodFields(pod, nil)
	mutatePodAffinity(pod)
	mutateTopologySpreadConstraints(pod)
	applyAppArmorVersionSkew(pod)
	podutil.DefaultPodLevelResources(pod)
}

// rcStrategy.PrepareForCreate (pkg/registry/core/replicationcontroller/strategy.go).
func prepareReplicationController(_ context.Context, obj runtime.Object) {
	podutil.DropDisabledTemplateFields(obj.(*api.ReplicationController).Spec.Template, nil)
}

// rsStrategy.PrepareForCreate (pkg/registry/apps/replicaset/strategy.go).
func prepareReplicaSet(_ context.Context, obj runtime.Object) {
	podutil.DropDisabledTemplateFields(&obj.(*apps.ReplicaSet).Spec.Template, nil)
}

// persistentvolumeclaimStrategy.PrepareForCreate (pkg/registry/core/persistentvolumeclaim/strategy.go).
func preparePersistentVolumeClaim(_ context.Context, obj runtime.Object) {
	pvc := obj.(*api.PersistentVolumeClaim)
	pvcutil.DropDisabledFields(&pvc.Spec, nil)
	pvcutil.EnforceDataSourceBackwardsCompatibility(&pvc.Spec, nil)
	pvcutil.NormalizeDataSources(&pvc.Spec)
}

// namespaceStrategy.PrepareForCreate (pkg/registry/core/namespace/strategy.go): the kubernetes
// finalizer, required on create.
func prepareNamespace(_ context.Context, obj runtime.Object) {
	ns := obj.(*api.Namespace)
	if !slices.Contains(ns.Spec.Finalizers, api.FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, api.FinalizerKubernetes)
	}
}

// strategy.PrepareForCreate (pkg/registry/core/serviceaccount/strategy.go cleanSecretReferences).
func prepareServiceAccount(_ context.Context, obj runtime.Object) {
	sa := obj.(*api.ServiceAccount)
	for i, secret := range sa.Secrets {
		sa.Secrets[i] = api.ObjectReference{Name: secret.Name}
	}
}

// jobStrategy.PrepareForCreate (pkg/registry/batch/job/strategy.go).
func prepareJob(_ context.Context, obj runtime.Object) {
	job := obj.(*batch.Job)
	if !*job.Spec.ManualSelector {
		generateJobSelector(job)
	}
	if !utilfeature.DefaultFeatureGate.Enabled(features.JobManagedBy) {
		job.Spec.ManagedBy = nil
	}
	jobutil.DropDisabledFields(&job.Spec, nil)
	podutil.DropDisabledTemplateFields(&job.Spec.Template, nil)
}

// generateJobSelector is generateSelector of pkg/registry/batch/job/strategy.go: the job-name
// labels from the name, the controller-uid labels and selector from the uid (empty offline).
func generateJobSelector(obj *batch.Job) {
	if obj.Spec.Template.Labels == nil {
		obj.Spec.Template.Labels = make(map[string]string)
	}
	for _, key := range []string{batch.LegacyJobNameLabel, batch.JobNameLabel} {
		if _, found := obj.Spec.Template.Labels[key]; !found {
			obj.Spec.Template.Labels[key] = obj.Name
		}
	}
	for _, key := range []string{batch.LegacyControllerUidLabel, batch.ControllerUidLabel} {
		if _, found := obj.Spec.Template.Labels[key]; !found {
			obj.Spec.Template.Labels[key] = string(obj.UID)
		}
	}
	if obj.Spec.Selector == nil {
		obj.Spec.Selector = &metav1.LabelSelector{}
	}
	if obj.Spec.Selector.MatchLabels == nil {
		obj.Spec.Selector.MatchLabels = make(map[string]string)
	}
	if _, found := obj.Spec.Selector.MatchLabels[batch.ControllerUidLabel]; !found {
		obj.Spec.Selector.MatchLabels[batch.ControllerUidLabel] = string(obj.UID)
	}
}

// mutatePodAffinity is pkg/registry/core/pod/strategy.go's: matchLabelKeys and mismatchLabelKeys
// merged into the terms' label selectors from the pod's labels.
func mutatePodAffinity(pod *api.Pod) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.MatchLabelKeysInPodAffinity) || pod.Spec.Affinity == nil {
		return
	}
	if a := pod.Spec.Affinity.PodAffinity; a != nil {
		for i := range a.PreferredDuringSchedulingIgnoredDuringExecution {
			applyAffinityLabelKeys(&a.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm, pod.Labels)
		}
		for i := range a.RequiredDuringSchedulingIgnoredDuringExecution {
			applyAffinityLabelKeys(&a.RequiredDuringSchedulingIgnoredDuringExecution[i], pod.Labels)
		}
	}
	if a := pod.Spec.Affinity.PodAntiAffinity; a != nil {
		for i := range a.PreferredDuringSchedulingIgnoredDuringExecution {
			applyAffinityLabelKeys(&a.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm, pod.Labels)
		}
		for i := range a.RequiredDuringSchedulingIgnoredDuringExecution {
			applyAffinityLabelKeys(&a.RequiredDuringSchedulingIgnoredDuringExecution[i], pod.Labels)
		}
	}
}

// applyAffinityLabelKeys is applyMatchLabelKeysAndMismatchLabelKeys of pkg/registry/core/pod/strategy.go.
func applyAffinityLabelKeys(term *api.PodAffinityTerm, labels map[string]string) {
	if (len(term.MatchLabelKeys) == 0 && len(term.MismatchLabelKeys) == 0) || term.LabelSelector == nil {
		return // a nil selector matches nothing
	}
	applyLabelKeysToLabelSelector(term.LabelSelector, term.MatchLabelKeys, metav1.LabelSelectorOpIn, labels)
	applyLabelKeysToLabelSelector(term.LabelSelector, term.MismatchLabelKeys, metav1.LabelSelectorOpNotIn, labels)
}

// mutateTopologySpreadConstraints is pkg/registry/core/pod/strategy.go's: matchLabelKeys merged
// into each constraint's label selector.
func mutateTopologySpreadConstraints(pod *api.Pod) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.MatchLabelKeysInPodTopologySpread) || !utilfeature.DefaultFeatureGate.Enabled(features.MatchLabelKeysInPodTopologySpreadSelectorMerge) {
		return
	}
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if len(c.MatchLabelKeys) == 0 || c.LabelSelector == nil {
			continue
		}
		applyLabelKeysToLabelSelector(c.LabelSelector, c.MatchLabelKeys, metav1.LabelSelectorOpIn, pod.Labels)
	}
}

// applyLabelKeysToLabelSelector is pkg/registry/core/pod/strategy.go's.
func applyLabelKeysToLabelSelector(selector *metav1.LabelSelector, keys []string, op metav1.LabelSelectorOperator, labels map[string]string) {
	for _, key := range keys {
		if value, ok := labels[key]; ok {
			selector.MatchExpressions = append(selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: []string{value}})
		}
	}
}

// applyAppArmorVersionSkew is pkg/registry/core/pod/strategy.go's, without the deprecation
// warning: a container's deprecated AppArmor annotation copied into its securityContext where the
// field is unset, the annotation valid and other than the pod's profile.
func applyAppArmorVersionSkew(pod *api.Pod) {
	if pod.Spec.OS != nil && pod.Spec.OS.Name == api.Windows {
		return
	}
	var podProfile *api.AppArmorProfile
	if pod.Spec.SecurityContext != nil {
		podProfile = pod.Spec.SecurityContext.AppArmorProfile
	}
	podutil.VisitContainers(&pod.Spec, podutil.AllFeatureEnabledContainers(), func(ctr *api.Container, _ podutil.ContainerType) bool {
		annotation, ok := pod.Annotations[api.DeprecatedAppArmorAnnotationKeyPrefix+ctr.Name]
		if !ok || ctr.SecurityContext != nil && ctr.SecurityContext.AppArmorProfile != nil {
			return true
		}
		profile := podutil.ApparmorFieldForAnnotation(annotation)
		if profile == nil || len(corevalidation.ValidateAppArmorProfileField(profile, &field.Path{})) > 0 || apiequality.Semantic.DeepEqual(profile, podProfile) {
			return true
		}
		if ctr.SecurityContext == nil {
			ctr.SecurityContext = &api.SecurityContext{}
		}
		ctr.SecurityContext.AppArmorProfile = profile
		return true
	})
}
