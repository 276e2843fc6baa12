package classify

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
	jobutil "k8s.io/kubernetes/pkg/api/job"
	pvcutil "k8s.io/kubernetes/pkg/api/persistentvolumeclaim"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
	"k8s.io/kubernetes/pkg/apis/certificates"
	certvalidation "k8s.io/kubernetes/pkg/apis/certificates/validation"
	"k8s.io/kubernetes/pkg/apis/coordination"
	coordvalidation "k8s.io/kubernetes/pkg/apis/coordination/validation"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/apis/discovery"
	discoveryvalidation "k8s.io/kubernetes/pkg/apis/discovery/validation"
	"k8s.io/kubernetes/pkg/apis/networking"
	netvalidation "k8s.io/kubernetes/pkg/apis/networking/validation"
	"k8s.io/kubernetes/pkg/apis/resource"
	resourcevalidation "k8s.io/kubernetes/pkg/apis/resource/validation"
	storageapi "k8s.io/kubernetes/pkg/apis/storage"
	storagevalidation "k8s.io/kubernetes/pkg/apis/storage/validation"
	"k8s.io/kubernetes/pkg/apis/storagemigration"
	svmvalidation "k8s.io/kubernetes/pkg/apis/storagemigration/validation"
	controllerrevisionregistry "k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	daemonsetregistry "k8s.io/kubernetes/pkg/registry/apps/daemonset"
	deploymentregistry "k8s.io/kubernetes/pkg/registry/apps/deployment"
	statefulsetregistry "k8s.io/kubernetes/pkg/registry/apps/statefulset"
	hparegistry "k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	cronjobregistry "k8s.io/kubernetes/pkg/registry/batch/cronjob"
	leaseregistry "k8s.io/kubernetes/pkg/registry/coordination/lease"
	limitrangeregistry "k8s.io/kubernetes/pkg/registry/core/limitrange"
	podtemplateregistry "k8s.io/kubernetes/pkg/registry/core/podtemplate"
	flowschemaregistry "k8s.io/kubernetes/pkg/registry/flowcontrol/flowschema"
	prioritylevelregistry "k8s.io/kubernetes/pkg/registry/flowcontrol/prioritylevelconfiguration"
	ingressregistry "k8s.io/kubernetes/pkg/registry/networking/ingress"
	ingressclassregistry "k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	networkpolicyregistry "k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	runtimeclassregistry "k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	pdbregistry "k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	clusterroleregistry "k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	clusterrolebindingregistry "k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	roleregistry "k8s.io/kubernetes/pkg/registry/rbac/role"
	rolebindingregistry "k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	deviceclassregistry "k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	priorityclassregistry "k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	csidriverregistry "k8s.io/kubernetes/pkg/registry/storage/csidriver"
	storageclassregistry "k8s.io/kubernetes/pkg/registry/storage/storageclass"
	volumeattachmentregistry "k8s.io/kubernetes/pkg/registry/storage/volumeattachment"
	vacregistry "k8s.io/kubernetes/pkg/registry/storage/volumeattributesclass"
	volumevalidation "k8s.io/kubernetes/pkg/volume/validation"
)

// updateValidation is what the API server runs on an update of a kind (k8s.io/apiserver
// registry/rest BeforeUpdate): its registry strategy's PrepareForUpdate, then its ValidateUpdate,
// which validates the new object whole (containerPort 70000, an invalid label selector...) and
// the change (immutable fields), on internal objects.
type updateValidation struct {
	fn string // the validation functions, for the evidence
	// the registry strategy itself, where its package links without the API server's storage
	strategy updateStrategy
	// else what the strategy's PrepareForUpdate and ValidateUpdate do, called as they call it:
	// their packages link k8s.io/apiserver's registry/generic (the etcd client, grpc, otel)
	// (gates: the feature gates of the server judged, by its version)
	validate func(gates featuregate.FeatureGate, nw, old runtime.Object) field.ErrorList
}

// updateStrategy is what the API server calls of a registry strategy on an update
// (rest.RESTUpdateStrategy's part BeforeUpdate runs here).
type updateStrategy interface {
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// updateValidations is every built-in kind kapp may deploy whose update the API server's own
// code judges here, the one table of them: a change made in Git this validation refuses fails
// the gate (immutableChange), whatever rulesets/immutable.yaml lists. Services are judged by
// serviceUpdateRefused (their storage prepares an update first); CustomResourceDefinitions by the
// apiextensions apiserver's validation the caller hands over (crdValidation); custom resources by
// their CRD;
// left out: kinds no deploy updates (Node, Event) and the admission webhook configurations and
// policies, whose validation package links the API server's admission plugins (an OpenTelemetry
// SDK, grpc-gateway) for the kapp or controller binary.
// TestImmutabilitySweep checks that every refusal Kubernetes' validation makes is here, in
// rulesets/immutable.yaml or reviewed as not a deploy's concern; TestUpdateValidationAcceptsCaptures
// that none of it refuses what a real API server accepted.
var updateValidations = map[schema.GroupKind]updateValidation{
	{Group: "apps", Kind: "Deployment"}:                                         {"pkg/apis/apps/validation ValidateDeploymentUpdate", deploymentregistry.Strategy, nil},
	{Group: "apps", Kind: "StatefulSet"}:                                        {"pkg/apis/apps/validation ValidateStatefulSetUpdate", statefulsetregistry.Strategy, nil},
	{Group: "apps", Kind: "DaemonSet"}:                                          {"pkg/apis/apps/validation ValidateDaemonSetUpdate", daemonsetregistry.Strategy, nil},
	{Group: "apps", Kind: "ControllerRevision"}:                                 {"pkg/apis/apps/validation ValidateControllerRevisionUpdate", controllerrevisionregistry.Strategy, nil},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                     {"pkg/apis/autoscaling/validation ValidateHorizontalPodAutoscalerUpdate", hparegistry.Strategy, nil},
	{Group: "batch", Kind: "CronJob"}:                                           {"pkg/apis/batch/validation ValidateCronJobUpdate", cronjobregistry.Strategy, nil},
	{Group: "coordination.k8s.io", Kind: "Lease"}:                               {"pkg/apis/coordination/validation ValidateLeaseUpdate", leaseregistry.Strategy, nil},
	{Kind: "LimitRange"}:                                                        {"pkg/apis/core/validation ValidateLimitRange", limitrangeregistry.Strategy, nil},
	{Kind: "PodTemplate"}:                                                       {"pkg/apis/core/validation ValidatePodTemplateUpdate", podtemplateregistry.Strategy, nil},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                 {"pkg/apis/flowcontrol/validation ValidateFlowSchemaUpdate", flowschemaregistry.Strategy, nil},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}: {"pkg/apis/flowcontrol/validation ValidatePriorityLevelConfiguration", prioritylevelregistry.Strategy, nil},
	{Group: "networking.k8s.io", Kind: "Ingress"}:                               {"pkg/apis/networking/validation ValidateIngressUpdate", ingressregistry.Strategy, nil},
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                          {"pkg/apis/networking/validation ValidateIngressClassUpdate", ingressclassregistry.Strategy, nil},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                         {"pkg/apis/networking/validation ValidateNetworkPolicyUpdate", networkpolicyregistry.Strategy, nil},
	{Group: "node.k8s.io", Kind: "RuntimeClass"}:                                {"pkg/apis/node/validation ValidateRuntimeClassUpdate", runtimeclassregistry.Strategy, nil},
	{Group: "policy", Kind: "PodDisruptionBudget"}:                              {"pkg/apis/policy/validation ValidatePodDisruptionBudget", pdbregistry.Strategy, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                          {"pkg/apis/rbac/validation ValidateRoleUpdate", roleregistry.Strategy, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                   {"pkg/apis/rbac/validation ValidateClusterRoleUpdate", clusterroleregistry.Strategy, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                   {"pkg/apis/rbac/validation ValidateRoleBindingUpdate", rolebindingregistry.Strategy, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:            {"pkg/apis/rbac/validation ValidateClusterRoleBindingUpdate", clusterrolebindingregistry.Strategy, nil},
	{Group: "resource.k8s.io", Kind: "DeviceClass"}:                             {"pkg/apis/resource/validation ValidateDeviceClassUpdate", deviceclassregistry.Strategy, nil},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                         {"pkg/apis/scheduling/validation ValidatePriorityClassUpdate", priorityclassregistry.Strategy, nil},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                {"pkg/apis/storage/validation ValidateCSIDriverUpdate", csidriverregistry.Strategy, nil},
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                             {"pkg/apis/storage/validation ValidateStorageClass, ValidateStorageClassUpdate", storageclassregistry.Strategy, nil},
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:                         {"pkg/apis/storage/validation ValidateVolumeAttachmentUpdate", volumeattachmentregistry.Strategy, nil},
	{Group: "storage.k8s.io", Kind: "VolumeAttributesClass"}:                    {"pkg/apis/storage/validation ValidateVolumeAttributesClassUpdate", vacregistry.Strategy, nil},

	// pkg/registry/core/pod: PrepareForUpdate keeps the pod-level resources a client dropped
	{Kind: "Pod"}: {"pkg/apis/core/validation ValidatePodUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*api.Pod), o.(*api.Pod)
		if nw.Spec.Resources == nil && old.Spec.Resources != nil {
			nw.Spec.Resources = old.Spec.Resources.DeepCopy()
		}
		podutil.DropDisabledPodFields(nw, old)
		opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&nw.Spec, &old.Spec, &nw.ObjectMeta, &old.ObjectMeta)
		opts.ResourceIsPod = true
		return corevalidation.ValidatePodUpdate(nw, old, opts)
	}},
	{Kind: "ReplicationController"}: {"pkg/apis/core/validation ValidateReplicationControllerUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*api.ReplicationController), o.(*api.ReplicationController)
		podutil.DropDisabledTemplateFields(nw.Spec.Template, old.Spec.Template)
		return corevalidation.ValidateReplicationControllerUpdate(nw, old, podutil.GetValidationOptionsFromPodTemplate(nw.Spec.Template, old.Spec.Template))
	}},
	{Group: "apps", Kind: "ReplicaSet"}: {"pkg/apis/apps/validation ValidateReplicaSetUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*apps.ReplicaSet), o.(*apps.ReplicaSet)
		podutil.DropDisabledTemplateFields(&nw.Spec.Template, &old.Spec.Template)
		return appsvalidation.ValidateReplicaSetUpdate(nw, old, podutil.GetValidationOptionsFromPodTemplate(&nw.Spec.Template, &old.Spec.Template))
	}},
	{Group: "batch", Kind: "Job"}: {"pkg/apis/batch/validation ValidateJobUpdate", nil, func(gates featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*batch.Job), o.(*batch.Job)
		jobutil.DropDisabledFields(&nw.Spec, &old.Spec)
		podutil.DropDisabledTemplateFields(&nw.Spec.Template, &old.Spec.Template)
		return batchvalidation.ValidateJobUpdate(nw, old, jobValidationOptions(gates, nw, old))
	}},
	{Kind: "ConfigMap"}: {"pkg/apis/core/validation ValidateConfigMapUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return corevalidation.ValidateConfigMapUpdate(n.(*api.ConfigMap), o.(*api.ConfigMap))
	}},
	// pkg/registry/core/secret: PrepareForUpdate keeps the live type where the update has none
	{Kind: "Secret"}: {"pkg/apis/core/validation ValidateSecretUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*api.Secret), o.(*api.Secret)
		if nw.Type == "" {
			nw.Type = old.Type
		}
		return corevalidation.ValidateSecretUpdate(nw, old)
	}},
	// pkg/registry/core/namespace: PrepareForUpdate keeps the live finalizers (the finalize subresource's)
	{Kind: "Namespace"}: {"pkg/apis/core/validation ValidateNamespace, ValidateNamespaceUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*api.Namespace), o.(*api.Namespace)
		nw.Spec.Finalizers = old.Spec.Finalizers
		return append(corevalidation.ValidateNamespace(nw), corevalidation.ValidateNamespaceUpdate(nw, old)...)
	}},
	{Kind: "PersistentVolumeClaim"}: {"pkg/apis/core/validation ValidatePersistentVolumeClaimUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*api.PersistentVolumeClaim), o.(*api.PersistentVolumeClaim)
		pvcutil.DropDisabledFields(&nw.Spec, &old.Spec)
		pvcutil.EnforceDataSourceBackwardsCompatibility(&nw.Spec, &old.Spec)
		pvcutil.NormalizeDataSources(&nw.Spec)
		pvcutil.NormalizeDataSources(&old.Spec)
		return corevalidation.ValidatePersistentVolumeClaimUpdate(nw, old, corevalidation.ValidationOptionsForPersistentVolumeClaim(nw, old))
	}},
	// pkg/registry/certificates/certificates: PrepareForUpdate keeps the live spec (and status)
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: {"pkg/apis/certificates/validation ValidateCertificateSigningRequestUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*certificates.CertificateSigningRequest), o.(*certificates.CertificateSigningRequest)
		nw.Spec = old.Spec
		return certvalidation.ValidateCertificateSigningRequestUpdate(nw, old)
	}},
	// pkg/registry/core/serviceaccount (whose package links the service account admission plugin)
	{Kind: "ServiceAccount"}: {"pkg/apis/core/validation ValidateServiceAccountUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		prepareServiceAccount(context.Background(), n)
		return corevalidation.ValidateServiceAccountUpdate(n.(*api.ServiceAccount), o.(*api.ServiceAccount))
	}},
	{Kind: "Endpoints"}: {"pkg/apis/core/validation ValidateEndpointsUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return corevalidation.ValidateEndpointsUpdate(n.(*api.Endpoints), o.(*api.Endpoints))
	}},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}: {"pkg/apis/discovery/validation ValidateEndpointSliceUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return discoveryvalidation.ValidateEndpointSliceUpdate(n.(*discovery.EndpointSlice), o.(*discovery.EndpointSlice))
	}},

	// probe14 P14-2: a ResourceClaimTemplate's spec, refused on update, passed check
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}: {"pkg/apis/resource/validation ValidateResourceClaimUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return resourcevalidation.ValidateResourceClaimUpdate(n.(*resource.ResourceClaim), o.(*resource.ResourceClaim))
	}},
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}: {"pkg/apis/resource/validation ValidateResourceClaimTemplate, ValidateResourceClaimTemplateUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw := n.(*resource.ResourceClaimTemplate)
		return append(resourcevalidation.ValidateResourceClaimTemplate(nw), resourcevalidation.ValidateResourceClaimTemplateUpdate(nw, o.(*resource.ResourceClaimTemplate))...)
	}},
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}: {"pkg/apis/resource/validation ValidateResourceSliceUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return resourcevalidation.ValidateResourceSliceUpdate(n.(*resource.ResourceSlice), o.(*resource.ResourceSlice))
	}},
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}: {"pkg/apis/certificates/validation ValidateClusterTrustBundleUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return certvalidation.ValidateClusterTrustBundleUpdate(n.(*certificates.ClusterTrustBundle), o.(*certificates.ClusterTrustBundle))
	}},
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}: {"pkg/apis/certificates/validation ValidatePodCertificateRequestUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return certvalidation.ValidatePodCertificateRequestUpdate(n.(*certificates.PodCertificateRequest), o.(*certificates.PodCertificateRequest))
	}},
	{Group: "networking.k8s.io", Kind: "IPAddress"}: {"pkg/apis/networking/validation ValidateIPAddress, ValidateIPAddressUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw := n.(*networking.IPAddress)
		return append(netvalidation.ValidateIPAddress(nw), netvalidation.ValidateIPAddressUpdate(nw, o.(*networking.IPAddress))...)
	}},
	{Group: "networking.k8s.io", Kind: "ServiceCIDR"}: {"pkg/apis/networking/validation ValidateServiceCIDRUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return netvalidation.ValidateServiceCIDRUpdate(n.(*networking.ServiceCIDR), o.(*networking.ServiceCIDR))
	}},
	{Group: "coordination.k8s.io", Kind: "LeaseCandidate"}: {"pkg/apis/coordination/validation ValidateLeaseCandidateUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return coordvalidation.ValidateLeaseCandidateUpdate(n.(*coordination.LeaseCandidate), o.(*coordination.LeaseCandidate))
	}},
	{Group: "storage.k8s.io", Kind: "CSIStorageCapacity"}: {"pkg/apis/storage/validation ValidateCSIStorageCapacity, ValidateCSIStorageCapacityUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw := n.(*storageapi.CSIStorageCapacity)
		return append(storagevalidation.ValidateCSIStorageCapacity(nw, storagevalidation.CSIStorageCapacityValidateOptions{}), storagevalidation.ValidateCSIStorageCapacityUpdate(nw, o.(*storageapi.CSIStorageCapacity))...)
	}},
	{Group: "storage.k8s.io", Kind: "CSINode"}: {"pkg/apis/storage/validation ValidateCSINodeUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return storagevalidation.ValidateCSINodeUpdate(n.(*storageapi.CSINode), o.(*storageapi.CSINode))
	}},
	{Group: "storagemigration.k8s.io", Kind: "StorageVersionMigration"}: {"pkg/apis/storagemigration/validation ValidateStorageVersionMigrationUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return svmvalidation.ValidateStorageVersionMigrationUpdate(n.(*storagemigration.StorageVersionMigration), o.(*storagemigration.StorageVersionMigration))
	}},
	// a ResourceQuota's scopes compare as a set (a reorder is let) and a PersistentVolume's
	// nodeAffinity may move from a beta topology label to its GA name: run, not listed (fix28f)
	{Kind: "ResourceQuota"}: {"pkg/apis/core/validation ValidateResourceQuotaUpdate", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		return corevalidation.ValidateResourceQuotaUpdate(n.(*api.ResourceQuota), o.(*api.ResourceQuota))
	}},
	{Kind: "PersistentVolume"}: {"pkg/apis/core/validation ValidatePersistentVolume, ValidatePersistentVolumeUpdate; pkg/volume/validation ValidatePersistentVolume", nil, func(_ featuregate.FeatureGate, n, o runtime.Object) field.ErrorList {
		nw, old := n.(*api.PersistentVolume), o.(*api.PersistentVolume)
		opts := corevalidation.ValidationOptionsForPersistentVolume(nw, old)
		errs := append(corevalidation.ValidatePersistentVolume(nw, opts), volumevalidation.ValidatePersistentVolume(nw)...)
		return append(errs, corevalidation.ValidatePersistentVolumeUpdate(nw, old, opts)...)
	}},
}
