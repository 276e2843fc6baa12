package classify

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
	"k8s.io/kubernetes/pkg/features"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// updateValidated reports whether the API server's update validation of id's kind is run here.
func (c *classifier) updateValidated(id pair.Identity) bool {
	_, ok := c.validationOf(schema.GroupKind{Group: id.Group, Kind: id.Kind})
	return ok
}

// updateRefused says why the API server refuses kapp's in-place update of fc's object, as evidence
// to append: its kind's update validation (updateValidations) fails on the object kapp sends (the
// manifest with kapp's rebase rules applied), defaulted as the server defaults a request, against
// the live object. An error the update to what kapp last applied (kapp.k14s.io/original) meets as
// well is left out: not this deploy's change made in Git. Worked out once per object.
func (c *classifier) updateRefused(fc fieldContext) (string, bool) {
	if fc.refusal == nil {
		return "", false
	}
	return fc.refusal.answer(func() string { return c.updateRefusalOf(fc) })
}

// refusal is whether the API server refuses kapp's update of one object, as evidence to append
// ("" when it does not), worked out once for all its changes.
type refusal struct {
	once sync.Once
	why  string
}

// answer is r's evidence, worked out by why on first use.
func (r *refusal) answer(why func() string) (string, bool) {
	r.once.Do(func() { r.why = why() })
	return r.why, r.why != ""
}

func (c *classifier) updateRefusalOf(fc fieldContext) string {
	gvk := fc.desired.GroupVersionKind()
	v, validated := c.validationOf(gvk.GroupKind())
	strategy := func(sends map[string]any) field.ErrorList {
		if !validated {
			return nil
		}
		return updateErrors(v, c.gates, sends, fc.live.Object)
	}
	sends := c.sends(fc.desired, fc.live)
	meta, spec := metadataErrors(fc.kappPrepared.Object, sends), strategy(sends)
	if fc.sent != nil {
		// kapp's last apply as it sent it: its labels then, not those of the Configs now
		if len(meta) > 0 {
			meta = notBefore(meta, metadataErrors(fc.sent, fc.sent))
		}
		if len(spec) > 0 {
			spec = notBefore(spec, strategy(c.sends(&unstructured.Unstructured{Object: fc.sent}, fc.live)))
		}
	}
	if len(meta)+len(spec) == 0 {
		return ""
	}
	_, module := schemeOf(gvk.Group)
	refused := func(meta, spec field.ErrorList) string {
		var by []string
		if len(meta) > 0 {
			by = append(by, "k8s.io/apiserver "+kappconv.Kubernetes+" rest.BeforeUpdate's ValidateObjectMetaAccessorUpdate, every kind's")
		}
		if len(spec) > 0 {
			by = append(by, fmt.Sprintf("%s %s %s", module, kappconv.Kubernetes, v.fn))
		}
		return fmt.Sprintf("the API server refuses kapp's update of the %s (%s): %s", gvk.Kind, strings.Join(by, "; "), escape.Text(strings.Join(errorTexts(slices.Concat(meta, spec)), "; ")))
	}
	var out []string
	if len(spec) > 0 {
		if byRules, written := c.refusedByRules(v, fc, sends, spec); len(byRules) > 0 {
			// a value the rules copy from the live object into what kapp sends, which the manifest
			// changes with (a ReplicationController's selector kept beside new template labels):
			// not the manifest's doing (newcomer14 N14-1)
			out = append(out, fmt.Sprintf("%s; the rebase rules cause it: they write %s into the object kapp sends, and without them the API server accepts the update; regenerate the rules now, from these manifests, and once more after the deploy, or take %s out of the rule's paths",
				refused(nil, byRules), strings.Join(written, ", "), map[bool]string{true: "it", false: "them"}[len(written) == 1]))
			spec = notBefore(spec, byRules)
		}
	}
	if len(meta)+len(spec) > 0 {
		remedy := updateRemedy(slices.Concat(meta, spec))
		if gvk.GroupKind() == crdKind {
			remedy = crdRemedy
		}
		out = append([]string{refused(meta, spec) + "; " + remedy}, out...)
	}
	return "; kapp's deploy fails here: " + strings.Join(out, "; and ")
}

// updateRemedy is what gets an update the API server refuses with errs through. A value invalid
// whatever the live object holds (a containerPort of 70000, minReplicas above maxReplicas) is
// refused on a create too: only the manifest's fix helps, and a replacement, a new name or
// kapp.k14s.io/versioned (each a create) would send a newcomer the wrong way (newcomer15 N15-5). A
// field that may not change (a suspended Job's image: "field is immutable", or forbidden on
// update) gets those remedies.
func updateRemedy(errs field.ErrorList) string {
	frozen := slices.ContainsFunc(errs, func(e *field.Error) bool {
		return e.Type == field.ErrorTypeForbidden || strings.Contains(e.Detail, apivalidation.FieldImmutableErrorMsg)
	})
	invalid := slices.ContainsFunc(errs, func(e *field.Error) bool {
		return e.Type != field.ErrorTypeForbidden && !strings.Contains(e.Detail, apivalidation.FieldImmutableErrorMsg)
	})
	replace := fmt.Sprintf("annotate the manifest with %s: fallback-on-replace (kapp then deletes and recreates the object), give the object a new name, or annotate it %s (kapp then creates a new object for each change)", kappconv.UpdateStrategy, kappconv.Versioned)
	switch {
	case frozen && invalid:
		return "fix the invalid values in the manifest; where a field may not change, " + replace
	case frozen:
		return "a field may not change: " + replace + ", or undo the change in the manifest"
	}
	return "the value is invalid whatever the live object holds, and the API server would refuse it on a create too: fix it in the manifest"
}

// refusedByRules are the errors of errs (those of the update sending sends, with the rule files
// checked applied) that the update kapp sends without those rule files (classifier.unruled) does
// not meet, and the fields where the rules' object differs from that one, sorted; none where
// there are no rule files or the object without them does not decode.
func (c *classifier) refusedByRules(v updateValidation, fc fieldContext, sends map[string]any, errs field.ErrorList) (field.ErrorList, []string) {
	if c.unruled == nil {
		return nil, nil
	}
	own, err := c.unruled(fc.desired, fc.live)
	if err != nil {
		return nil, nil
	}
	byRules := notBefore(errs, updateErrors(v, c.gates, own.Object, fc.live.Object))
	if len(byRules) == 0 {
		return nil, nil
	}
	// as the server defaults each: not the defaults the rules copy that it gives the manifest alike
	with, ok := defaultedAsSent(sends)
	without, ok2 := defaultedAsSent(own.Object)
	if !ok || !ok2 {
		return nil, nil
	}
	written := differing(with.Object, without.Object, nil)
	if len(written) == 0 {
		return nil, nil
	}
	slices.Sort(written)
	return byRules, written
}

// differing are the paths (map keys) at which a and b hold different values: the deepest map
// keys, a list as a whole.
func differing(a, b map[string]any, at []string) []string {
	var out []string
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, escape.Text(fielddiff.FromFields(append(slices.Clone(at), k)).String()))
		}
	}
	for k, bv := range b {
		av, ok := a[k]
		p := append(slices.Clone(at), k)
		am, amap := av.(map[string]any)
		bm, bmap := bv.(map[string]any)
		switch {
		case ok && amap && bmap:
			out = append(out, differing(am, bm, p)...)
		case !ok || !fielddiff.Equal(av, bv):
			out = append(out, escape.Text(fielddiff.FromFields(p).String()))
		}
	}
	return out
}

// metadataErrors are the API server's errors for the labels and annotations of kapp's writes of
// applied (the manifest as kapp prepared it: its own labels and the Configs' additionalLabels
// added), as every kind's update validates them (k8s.io/apiserver rest.BeforeUpdate's
// ValidateObjectMetaAccessorUpdate, custom resources' too): its update, sending sends (applied
// rebased), then the update recording applied in kapp.k14s.io/original
// (clusterapply/add_or_update_change.go recordAppliedResource, diff/resource_with_history.go
// RecordLastAppliedResource: applied as compact JSON beside the annotations the object holds,
// which a manifest's large annotations take over the server's total). kapp records nothing where
// the object disables it or the JSON is over kapp's own limit.
func metadataErrors(applied, sends map[string]any) field.ErrorList {
	u := &unstructured.Unstructured{Object: sends}
	labels, annotations := u.GetLabels(), u.GetAnnotations()
	if errs := metaErrors(labels, annotations); len(errs) > 0 {
		return errs
	}
	if _, off := annotations[kappconv.DisableOriginal]; off {
		return nil
	}
	a := (&unstructured.Unstructured{Object: applied}).DeepCopy()
	if ann := a.GetAnnotations(); ann != nil {
		for _, k := range kappconv.HistoryAnnotations() {
			delete(ann, k) // kapp records the manifest without its history (ResourceWithoutHistory)
		}
		a.SetAnnotations(ann)
	}
	record, err := json.Marshal(a.Object)
	if err != nil || len(record) > kappconv.OriginalMaxLen {
		return nil
	}
	recorded := maps.Clone(annotations)
	if recorded == nil {
		recorded = map[string]string{}
	}
	recorded[kappconv.Original] = string(record)
	recorded[kappconv.OriginalDiffMD5] = strings.Repeat("0", 2*md5.Size)
	return metaErrors(labels, recorded)
}

// metaErrors are apimachinery's errors for an update's labels and annotations.
func metaErrors(labels, annotations map[string]string) field.ErrorList {
	at := field.NewPath("metadata")
	return append(metav1validation.ValidateLabels(labels, at.Child("labels")), apivalidation.ValidateAnnotations(annotations, at.Child("annotations"))...)
}

// sends is the object kapp's update sends for manifest: with kapp's rebase rules applied where
// the classifier has them (a copy of the live volumeName of a claim, of what a rule keeps), else
// the manifest. A rule kapp fails on fails the deploy before any update: the manifest then.
func (c *classifier) sends(manifest, live *unstructured.Unstructured) map[string]any {
	if c.rebase != nil {
		if r, err := c.rebase(manifest, live); err == nil {
			return r.Object
		}
	}
	return manifest.Object
}

// updateErrors are v's errors for the update sending manifest over live; nil where either does
// not decode into its kind's internal type (the defaulting stage says so).
func updateErrors(v updateValidation, gates featuregate.FeatureGate, manifest, live map[string]any) field.ErrorList {
	old, ok := internalObject(live, false)
	if !ok {
		return nil
	}
	nw, ok := internalObject(manifest, true)
	if !ok || reflect.TypeOf(nw) != reflect.TypeOf(old) {
		return nil
	}
	// the server's own metadata (uid, resourceVersion, creationTimestamp) and, as the strategies'
	// PrepareForUpdate, the live status: not what this judges
	for _, name := range []string{"ObjectMeta", "Status"} {
		if f := reflect.ValueOf(nw).Elem().FieldByName(name); f.IsValid() && f.CanSet() {
			f.Set(reflect.ValueOf(old.DeepCopyObject()).Elem().FieldByName(name))
		}
	}
	errs, err := v.run(requestContext(manifest), gates, nw, old)
	if err != nil {
		return nil // the server answers an internal error, not a refusal of the change
	}
	return errs
}

// notBefore are the errors of errs whose cause before (the errors kapp's last apply,
// kapp.k14s.io/original, meets) does not hold: an error of the same field, type and detail of the
// same value (field.Error's BadValue, what the validation judged: a whole immutable template)
// has the same cause, not this deploy's change made in Git. Compared by text, one refusal of a
// running Job's template for the controller's labels kapp's last apply lacks hid another, of the
// nodeSelector Git adds ("spec.template: Invalid value: field is immutable", both).
func notBefore(errs, before field.ErrorList) field.ErrorList {
	return slices.DeleteFunc(slices.Clone(errs), func(e *field.Error) bool {
		return slices.ContainsFunc(before, func(b *field.Error) bool {
			return e.Field == b.Field && e.Type == b.Type && e.Detail == b.Detail && apiequality.Semantic.DeepEqual(e.BadValue, b.BadValue)
		})
	})
}

// errorTexts are errs as field, type and detail, each once: never the value, which may be large
// (a whole spec) or a secret.
func errorTexts(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		msg := e.Field + ": " + e.Type.String()
		if e.Detail != "" {
			msg += ": " + e.Detail
		}
		if !slices.Contains(out, msg) {
			out = append(out, msg)
		}
	}
	return out
}

// run runs v on the update of old to nw as the API server does; a panic of Kubernetes' code
// (the server recovers it into an internal error) is an error.
func (v updateValidation) run(ctx context.Context, gates featuregate.FeatureGate, nw, old runtime.Object) (errs field.ErrorList, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the update validation of %s failed: %v", v.fn, r)
		}
	}()
	if v.strategy == nil {
		return v.validate(gates, nw, old), nil
	}
	v.strategy.PrepareForUpdate(ctx, nw, old)
	return v.strategy.ValidateUpdate(ctx, nw, old), nil
}

// requestContext is the context of kapp's update request of obj as the API server sees it: its
// namespace and request info (the API version some validations depend on: a
// PriorityLevelConfiguration's).
func requestContext(obj map[string]any) context.Context {
	u := &unstructured.Unstructured{Object: obj}
	gv := u.GroupVersionKind().GroupVersion()
	ctx := genericapirequest.WithNamespace(context.Background(), u.GetNamespace())
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "update",
		APIGroup: gv.Group, APIVersion: gv.Version, Namespace: u.GetNamespace(), Name: u.GetName()})
}

// jobValidationOptions is pkg/registry/batch/job/strategy.go's validationOptionsForJob of an
// update, with its shouldAllowMutablePodTemplate (both feature gates on by default since v1.36):
// a suspended Job's scheduling directives may change before it starts or while it is held
// suspended, its containers' resources too; the rest of its template never
// (TestSuspendedJobTemplateChange: the strategy itself is its oracle).
func jobValidationOptions(gates featuregate.FeatureGate, nw, old *batch.Job) batchvalidation.JobValidationOptions {
	opts := batchvalidation.JobValidationOptions{PodValidationOptions: podutil.GetValidationOptionsFromPodTemplate(&nw.Spec.Template, &old.Spec.Template)}
	opts.AllowInvalidLabelValueInSelector = opts.AllowInvalidLabelValueInSelector || metav1validation.LabelSelectorHasInvalidLabelValue(old.Spec.Selector)
	suspended := old.Spec.Suspend != nil && *old.Spec.Suspend
	opts.AllowMutableSchedulingDirectives = suspended && old.Status.StartTime == nil
	mutable := suspended && (old.Status.StartTime == nil || batchvalidation.IsConditionTrue(old.Status.Conditions, batch.JobSuspended)) && old.Status.Active == 0
	if gates.Enabled(features.MutablePodResourcesForSuspendedJobs) {
		opts.AllowMutablePodResources = mutable
	}
	if gates.Enabled(features.MutableSchedulingDirectivesForSuspendedJobs) {
		opts.AllowMutableSchedulingDirectives = mutable
	}
	// validation does not fail jobs without the new labels (the strategy's words)
	_, hadJobName := old.Spec.Template.Labels[batch.JobNameLabel]
	_, hadControllerUID := old.Spec.Template.Labels[batch.ControllerUidLabel]
	opts.RequirePrefixedLabels = hadJobName && hadControllerUID
	return opts
}

// defaultedAsSent is obj, of any version the server serves, defaulted as the server defaults a
// request; false where it does not decode into its kind's type.
func defaultedAsSent(obj map[string]any) (*unstructured.Unstructured, bool) {
	versioned, _, ok := decoded(obj, true)
	if !ok {
		return nil, false
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(versioned)
	return &unstructured.Unstructured{Object: out}, err == nil
}

// internalObject decodes obj, of any version the server serves, into its kind's internal type,
// defaulted as the server defaults a request when defaulted.
func internalObject(obj map[string]any, defaulted bool) (runtime.Object, bool) {
	versioned, scheme, ok := decoded(obj, defaulted)
	if !ok {
		return nil, false
	}
	gvk := (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
	internal, err := scheme.ConvertToVersion(versioned, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, false
	}
	return internal, true
}

// decoded is obj decoded into its kind's versioned type, defaulted as the server defaults a
// request when defaulted, and the scheme holding the type.
func decoded(obj map[string]any, defaulted bool) (runtime.Object, *runtime.Scheme, bool) {
	gvk := (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
	scheme, _ := schemeOf(gvk.Group)
	versioned, err := scheme.New(gvk)
	if err != nil {
		return nil, nil, false
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, versioned); err != nil {
		return nil, nil, false
	}
	if defaulted {
		scheme.Default(versioned)
	}
	return versioned, scheme, true
}

// gatesAt are the feature gates of a kube-apiserver of sv's version with its default gates:
// Kubernetes' own versioned gate data (pkg/features) at that emulation version. The binary's
// own (v1.37) where sv is not known or newer than it.
func gatesAt(sv *load.ServerVersion) featuregate.FeatureGate {
	if sv == nil {
		return utilfeature.DefaultFeatureGate
	}
	g := utilfeature.DefaultMutableFeatureGate.DeepCopyAndReset()
	if err := g.SetEmulationVersion(version.MajorMinor(sv.Version.Major(), sv.Version.Minor())); err != nil {
		return utilfeature.DefaultFeatureGate
	}
	return g
}
