package kapptest

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/apis/rbac"
	rbacvalidation "k8s.io/kubernetes/pkg/apis/rbac/validation"

	// the API server's defaulting of the kinds the oracles default (legacyscheme)
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
)

// Defaulted is obj (its apiVersion and kind set) as the API server's defaulting code
// (k8s.io/kubernetes' scheme, as the server decodes a request) leaves it; obj is left as it is.
func Defaulted(t testing.TB, obj map[string]any) map[string]any {
	t.Helper()
	gvk := (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
	typed, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		t.Fatal(err)
	}
	legacyscheme.Scheme.Default(typed)
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Stored is obj (its apiVersion and kind set) as the API server stores it on a create: decoded
// and defaulted (Defaulted), converted to the internal version and back (a Secret's stringData
// merged into data, base64-encoded), as the server's decode and its storage encoding do.
func Stored(t testing.TB, obj map[string]any) map[string]any {
	t.Helper()
	gv := (&unstructured.Unstructured{Object: obj}).GroupVersionKind().GroupVersion()
	typed, err := legacyscheme.Scheme.New(gv.WithKind((&unstructured.Unstructured{Object: obj}).GetKind()))
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(Defaulted(t, obj), typed); err != nil {
		t.Fatal(err)
	}
	in, err := legacyscheme.Scheme.ConvertToVersion(typed, schema.GroupVersion{Group: gv.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		t.Fatal(err)
	}
	back, err := legacyscheme.Scheme.ConvertToVersion(in, gv)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(back)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// DefaultedDeployment is obj as the API server's defaulting code leaves a Deployment it decodes.
func DefaultedDeployment(t testing.TB, obj map[string]any) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, d); err != nil {
		t.Fatal(err)
	}
	legacyscheme.Scheme.Default(d)
	return d
}

// DeploymentRefused is the API server's validation of a Deployment created in ns, as it decodes
// and defaults it (k8s.io/kubernetes pkg/apis/apps/validation ValidateDeployment): nil when it
// accepts it.
func DeploymentRefused(t testing.TB, obj map[string]any, ns string) error {
	t.Helper()
	internal := &apps.Deployment{}
	if err := legacyscheme.Scheme.Convert(DefaultedDeployment(t, obj), internal, nil); err != nil {
		t.Fatal(err)
	}
	internal.Namespace = ns
	return appsvalidation.ValidateDeployment(internal, corevalidation.PodValidationOptions{}).ToAggregate()
}

// internal is obj decoded as typed (a v1 type) and defaulted, converted to into (the internal
// type the API server validates).
func internal(t testing.TB, obj map[string]any, typed, into runtime.Object) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		t.Fatal(err)
	}
	legacyscheme.Scheme.Default(typed)
	if err := legacyscheme.Scheme.Convert(typed, into, nil); err != nil {
		t.Fatal(err)
	}
}

// RoleBindingUpdateRefused is the API server's validation of an update of the RoleBinding live
// to obj (k8s.io/kubernetes pkg/apis/rbac/validation ValidateRoleBindingUpdate): nil when it
// accepts it.
func RoleBindingUpdateRefused(t testing.TB, obj, live map[string]any) error {
	t.Helper()
	var n, o rbac.RoleBinding
	internal(t, obj, &rbacv1.RoleBinding{}, &n)
	internal(t, live, &rbacv1.RoleBinding{}, &o)
	n.ResourceVersion = o.ResourceVersion
	return rbacvalidation.ValidateRoleBindingUpdate(&n, &o).ToAggregate()
}

// ReplicationControllerUpdateRefused is the API server's validation of an update of the
// ReplicationController live to obj, as it decodes and defaults obj (k8s.io/kubernetes
// pkg/apis/core/v1 SetDefaults_ReplicationController, pkg/apis/core/validation
// ValidateReplicationControllerUpdate): nil when it accepts it.
func ReplicationControllerUpdateRefused(t testing.TB, obj, live map[string]any) error {
	t.Helper()
	var n, o core.ReplicationController
	internal(t, obj, &corev1.ReplicationController{}, &n)
	internal(t, live, &corev1.ReplicationController{}, &o)
	n.ObjectMeta = o.ObjectMeta
	return corevalidation.ValidateReplicationControllerUpdate(&n, &o, corevalidation.PodValidationOptions{}).ToAggregate()
}

// LimitRangeRefused is the API server's validation of a LimitRange (k8s.io/kubernetes
// pkg/apis/core/validation ValidateLimitRange): nil when it accepts it.
func LimitRangeRefused(t testing.TB, obj map[string]any) error {
	t.Helper()
	var n core.LimitRange
	internal(t, obj, &corev1.LimitRange{}, &n)
	return corevalidation.ValidateLimitRange(&n).ToAggregate()
}
