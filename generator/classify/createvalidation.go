package classify

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/apis/discovery"
	discoveryvalidation "k8s.io/kubernetes/pkg/apis/discovery/validation"
	volumevalidation "k8s.io/kubernetes/pkg/volume/validation"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// kapp replaces an object (carvel.dev/kapp v0.66.0 pkg/kapp/clusterapply/add_or_update_change.go
// replace) under kapp.k14s.io/update-strategy always-replace, and under fallback-on-replace where
// the server refuses the update as invalid: it deletes the live object, waits until it is gone,
// then creates what it applies (the manifest, without its rebase rules: AppliedResource). Where
// the server refuses that create, the deploy fails with the object deleted: the server's create
// validation, not its update validation, judges such a change made in Git.

// createValidation is what the API server runs on a create of a kind (k8s.io/apiserver
// registry/rest BeforeCreate): its registry strategy's PrepareForCreate, then its Validate.
type createValidation struct {
	fn string // the validation, for the evidence
	// the registry strategy itself, where updateValidations holds one that creates as well
	strategy rest.RESTCreateStrategy
	// else what the strategy's Validate does, after createStrategies' PrepareForCreate
	validate func(obj runtime.Object) field.ErrorList
}

// replaced reports whether the manifest may have kapp replace fc's object, of a kind whose create
// validation is run here.
func (c *classifier) replaced(fc fieldContext) bool {
	switch strategy, _, _ := c.updateStrategy(fc); strategy {
	case "always-replace", "fallback-on-replace":
		_, ok := createValidationOf(fc.desired.GroupVersionKind().GroupKind())
		return ok
	}
	return false
}

// createValidationOf is the API server's create validation of gk, if run here: the registry
// strategy updateValidations holds, else createValidations'.
func createValidationOf(gk schema.GroupKind) (createValidation, bool) {
	if u, ok := updateValidations[gk]; ok {
		if s, ok := u.strategy.(rest.RESTCreateStrategy); ok {
			pkg := strings.TrimPrefix(reflect.Indirect(reflect.ValueOf(s)).Type().PkgPath(), "k8s.io/kubernetes/")
			return createValidation{fn: pkg + " Strategy.PrepareForCreate, Validate", strategy: s}, true
		}
	}
	v, ok := createValidations[gk]
	return v, ok
}

// createValidations are the create validations of the kinds whose strategy's package links the
// API server's storage (see updateValidations), each as its strategy's Validate calls it (the
// options it builds with no old object). Left out: the kinds no deploy replaces (certificates,
// resource claims, IP addresses, leases candidates, storage capacities) and CustomResourceDefinitions
// (deleting one deletes every custom resource of it; its update is judged).
var createValidations = map[schema.GroupKind]createValidation{
	{Kind: "Pod"}: {"pkg/apis/core/validation ValidatePodCreate", nil, func(o runtime.Object) field.ErrorList {
		pod := o.(*api.Pod)
		opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&pod.Spec, nil, &pod.ObjectMeta, nil)
		opts.ResourceIsPod = true
		return corevalidation.ValidatePodCreate(pod, opts)
	}},
	{Kind: "ReplicationController"}: {"pkg/apis/core/validation ValidateReplicationController", nil, func(o runtime.Object) field.ErrorList {
		rc := o.(*api.ReplicationController)
		return corevalidation.ValidateReplicationController(rc, podutil.GetValidationOptionsFromPodTemplate(rc.Spec.Template, nil))
	}},
	{Group: "apps", Kind: "ReplicaSet"}: {"pkg/apis/apps/validation ValidateReplicaSet", nil, func(o runtime.Object) field.ErrorList {
		rs := o.(*apps.ReplicaSet)
		return appsvalidation.ValidateReplicaSet(rs, podutil.GetValidationOptionsFromPodTemplate(&rs.Spec.Template, nil))
	}},
	// pkg/registry/batch/job validationOptionsForJob with no old Job
	{Group: "batch", Kind: "Job"}: {"pkg/apis/batch/validation ValidateJobCreate", nil, func(o runtime.Object) field.ErrorList {
		job := o.(*batch.Job)
		opts := batchvalidation.JobValidationOptions{PodValidationOptions: podutil.GetValidationOptionsFromPodTemplate(&job.Spec.Template, nil), RequirePrefixedLabels: true}
		return batchvalidation.ValidateJobCreate(job, opts)
	}},
	{Kind: "ConfigMap"}: {"pkg/apis/core/validation ValidateConfigMap", nil, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateConfigMap(o.(*api.ConfigMap))
	}},
	{Kind: "Secret"}: {"pkg/apis/core/validation ValidateSecret", nil, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateSecret(o.(*api.Secret))
	}},
	{Kind: "Namespace"}: {"pkg/apis/core/validation ValidateNamespace", nil, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateNamespace(o.(*api.Namespace))
	}},
	{Kind: "PersistentVolumeClaim"}: {"pkg/apis/core/validation ValidatePersistentVolumeClaim", nil, func(o runtime.Object) field.ErrorList {
		pvc := o.(*api.PersistentVolumeClaim)
		return corevalidation.ValidatePersistentVolumeClaim(pvc, corevalidation.ValidationOptionsForPersistentVolumeClaim(pvc, nil))
	}},
	{Kind: "PersistentVolume"}: {"pkg/apis/core/validation ValidatePersistentVolume; pkg/volume/validation ValidatePersistentVolume", nil, func(o runtime.Object) field.ErrorList {
		pv := o.(*api.PersistentVolume)
		return append(corevalidation.ValidatePersistentVolume(pv, corevalidation.ValidationOptionsForPersistentVolume(pv, nil)), volumevalidation.ValidatePersistentVolume(pv)...)
	}},
	{Kind: "ServiceAccount"}: {"pkg/apis/core/validation ValidateServiceAccount", nil, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateServiceAccount(o.(*api.ServiceAccount))
	}},
	{Kind: "ResourceQuota"}: {"pkg/apis/core/validation ValidateResourceQuota", nil, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateResourceQuota(o.(*api.ResourceQuota))
	}},
	{Kind: "Endpoints"}: {"pkg/apis/core/validation ValidateEndpointsCreate", nil, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateEndpointsCreate(o.(*api.Endpoints))
	}},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}: {"pkg/apis/discovery/validation ValidateEndpointSliceCreate", nil, func(o runtime.Object) field.ErrorList {
		return discoveryvalidation.ValidateEndpointSliceCreate(o.(*discovery.EndpointSlice))
	}},
	// the Service storage allocates its addresses and ports around this (not run here): a
	// manifest's own clusterIP or nodePort is judged by their form only
	{Kind: "Service"}: {"pkg/apis/core/validation ValidateServiceCreate", nil, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateServiceCreate(o.(*api.Service))
	}},
}

// createUID stands for the uid the server gives the object it creates (a Job's generated
// selector and labels hold it): any valid one.
const createUID = types.UID("00000000-0000-4000-8000-000000000000")

// createErrors are v's errors for the create of manifest, named and placed as live (the object
// kapp deleted); nil where it does not decode into
// its kind's internal type (the defaulting stage says so).
func createErrors(v createValidation, manifest map[string]any, live *unstructured.Unstructured) field.ErrorList {
	obj, ok := internalObject(manifest, true)
	if !ok {
		return nil
	}
	meta := reflect.ValueOf(obj).Elem().FieldByName("ObjectMeta")
	if meta.IsValid() {
		m := meta.Addr().Interface().(interface {
			SetName(string)
			SetNamespace(string)
			SetUID(types.UID)
			SetResourceVersion(string)
		})
		m.SetName(live.GetName())
		m.SetNamespace(live.GetNamespace())
		m.SetUID(createUID)
		m.SetResourceVersion("")
	}
	// every strategy's PrepareForCreate drops the status a client sends
	if st := reflect.ValueOf(obj).Elem().FieldByName("Status"); st.IsValid() && st.CanSet() {
		st.Set(reflect.Zero(st.Type()))
	}
	errs, err := v.run(obj, live)
	if err != nil {
		return nil // the server answers an internal error, not a refusal of the object
	}
	return errs
}

// run runs v on the create of obj as the API server does; a panic of Kubernetes' code (the
// server recovers it into an internal error) is an error.
func (v createValidation) run(obj runtime.Object, live *unstructured.Unstructured) (errs field.ErrorList, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the create validation of %s failed: %v", v.fn, r)
		}
	}()
	gv := live.GroupVersionKind().GroupVersion()
	ctx := genericapirequest.WithNamespace(context.Background(), live.GetNamespace())
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "create",
		APIGroup: gv.Group, APIVersion: gv.Version, Namespace: live.GetNamespace(), Name: live.GetName()})
	if v.strategy != nil {
		v.strategy.PrepareForCreate(ctx, obj)
		return rest.ValidateCreate(ctx, obj, v.strategy), nil
	}
	if s, ok := createStrategies[live.GroupVersionKind().GroupKind()]; ok {
		s.prepare(ctx, obj)
	}
	return v.validate(obj), nil
}

// replaceRefused says why the API server refuses the create of kapp's replace of fc's object
// (strategy: the update strategy that has kapp replace it), as evidence to append. An error the
// create of what kapp last applied (kapp.k14s.io/original) meets as well is left out, as
// updateRefused leaves out those of the update: not this deploy's change made in Git. Worked out
// once per object.
func (c *classifier) replaceRefused(fc fieldContext, strategy string) (string, bool) {
	if fc.replaceRefusal == nil {
		return "", false
	}
	return fc.replaceRefusal.answer(func() string {
		validation, refused := createRefusal(fc.desired, fc.live, fc.sent)
		if refused == "" {
			return ""
		}
		when := "kapp replaces the object"
		_, named, _ := c.updateStrategy(fc)
		if strategy == "fallback-on-replace" {
			when = "the API server refuses kapp's update, so kapp replaces the object"
		}
		kind := fc.desired.GetKind()
		return fmt.Sprintf("; kapp's deploy fails here: %s (%s): it deletes the live %s, then the API server refuses to create the manifest's (%s): %s; the %s stays deleted until a deploy creates it: change the manifest so that the object is valid",
			when, named, kind, validation, refused, kind)
	})
}

// CreateRefused says why the API server refuses to create desired's object where live was, as
// a tool that deletes live and creates the manifest meets it (Argo CD's sync option Force=true):
// the create validation of its kind, as kapp's replace is judged (replaceRefused), "" where the
// server creates it or its kind's create validation is not run here; validation names the
// Kubernetes code run.
func CreateRefused(desired, live *unstructured.Unstructured) (validation, refused string) {
	return createRefusal(desired, live, nil)
}

// createRefusal is CreateRefused leaving out the errors the create of sent (what was last
// applied; nil for none) meets as well: not this change's.
func createRefusal(desired, live *unstructured.Unstructured, sent map[string]any) (validation, refused string) {
	gvk := desired.GroupVersionKind()
	v, ok := createValidationOf(gvk.GroupKind())
	if !ok {
		return "", ""
	}
	errs := createErrors(v, desired.Object, live)
	if len(errs) > 0 && sent != nil {
		errs = notBefore(errs, createErrors(v, sent, live))
	}
	if len(errs) == 0 {
		return "", ""
	}
	_, module := schemeOf(gvk.Group)
	return module + " " + kappconv.Kubernetes + " " + v.fn, escape.Text(strings.Join(errorTexts(errs), "; "))
}
