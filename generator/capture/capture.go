// Package capture reads a kapp app's live objects from a cluster, read-only: the app's
// ConfigMap gives its label, discovery the kinds, and each kind is listed by that label. The
// desired state comes from the kapp.k14s.io/original annotation kapp stores on each object.
//
// RBAC needed: get on configmaps in the app's namespace; list on every resource kind the app
// uses (cluster-wide for cluster-scoped kinds and when objects live in other namespaces);
// discovery (/api, /apis), which every authenticated user has; and get on the
// customresourcedefinitions of the custom resources it captured (crds.go).
package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Redacted replaces every Secret value: valid base64, equal on both sides, which the analysis
// recognises as unknown (load.Redacted), so a captured Secret pairs without showing or diffing
// its values.
const Redacted = load.Redacted

// Options say which app to read.
type Options struct {
	App       string // kapp app name (for a PackageInstall or App NAME, kapp-controller's app is NAME.app)
	Namespace string // where the app's ConfigMap is
	Retries   int    // per kind, on errors other than forbidden/not found
	Progress  func(done, total int)
}

// Failure is a kind that could not be listed.
type Failure struct {
	Resource string
	Err      error
}

// Result is what was captured.
type Result struct {
	Live     []*unstructured.Unstructured // sorted by kind, namespace, name
	CRDs     []*unstructured.Unstructured // of the custom resources among Live the app does not ship, by name
	Failures []Failure
	// ServerVersion is the server's GET /version body: the live objects were defaulted by that
	// version's code, which rebasegen reads back from server-version.json.
	ServerVersion []byte
}

// Run captures the app.
func Run(ctx context.Context, cfg *rest.Config, opts Options) (*Result, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{} // deprecation warnings of kinds listed in passing
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	label, err := appLabel(ctx, core, opts)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	resources, err := listable(core.Discovery())
	if err != nil {
		return nil, err
	}
	res := &Result{}
	if res.ServerVersion, err = core.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw(); err != nil {
		return nil, fmt.Errorf("reading the API server's version (GET /version): %w", err)
	}
	var captured []schema.GroupVersionResource
	for i, gvr := range resources {
		items, err := list(ctx, dyn, gvr, label, opts.Retries)
		if err != nil {
			res.Failures = append(res.Failures, Failure{Resource: gvr.String(), Err: err})
		}
		n := len(res.Live)
		for j := range items {
			if transient(&items[j]) {
				continue
			}
			res.Live = append(res.Live, redact(&items[j]))
		}
		if len(res.Live) > n {
			captured = append(captured, gvr)
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(resources))
		}
	}
	sort.Slice(res.Live, func(i, j int) bool { return key(res.Live[i]) < key(res.Live[j]) })
	crds, failures := crdsOf(ctx, dyn, captured, res.Live)
	res.CRDs, res.Failures = crds, append(res.Failures, failures...)
	return res, nil
}

// appLabel reads kapp's app ConfigMap (NAME, or NAME.apps.k14s.io once migrated).
func appLabel(ctx context.Context, core kubernetes.Interface, opts Options) (string, error) {
	for _, name := range []string{opts.App + ".apps.k14s.io", opts.App} {
		cm, err := core.CoreV1().ConfigMaps(opts.Namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("reading kapp app %s/%s: %w", opts.Namespace, opts.App, err)
		}
		var meta struct {
			LabelKey   string `json:"labelKey"`
			LabelValue string `json:"labelValue"`
		}
		if err := json.Unmarshal([]byte(cm.Data["spec"]), &meta); err != nil || meta.LabelKey == "" {
			return "", fmt.Errorf("configmap %s/%s is not a kapp app (no spec.labelKey)", opts.Namespace, name)
		}
		return meta.LabelKey + "=" + meta.LabelValue, nil
	}
	return "", fmt.Errorf("no kapp app %s in namespace %s", opts.App, opts.Namespace)
}

// listable is every preferred resource that can be listed, minus subresources.
func listable(d discovery.DiscoveryInterface) ([]schema.GroupVersionResource, error) {
	lists, err := d.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	var out []schema.GroupVersionResource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !hasVerb(r.Verbs, "list") {
				continue
			}
			out = append(out, gv.WithResource(r.Name))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

func hasVerb(verbs []string, v string) bool {
	for _, x := range verbs {
		if x == v {
			return true
		}
	}
	return false
}

func list(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, label string, retries int) ([]unstructured.Unstructured, error) {
	var err error
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
		}
		var l *unstructured.UnstructuredList
		l, err = dyn.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: label})
		if err == nil {
			return l.Items, nil
		}
		if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			break // retrying cannot help
		}
	}
	return nil, err
}

// transient objects are made by a controller (ReplicaSets, Pods, EndpointSlices): they carry the
// app's labels, even kapp's original annotation (a ReplicaSet copies its Deployment's), but kapp
// did not apply them and does not diff them.
func transient(u *unstructured.Unstructured) bool {
	for _, ref := range u.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			return true
		}
	}
	return false
}

func key(u *unstructured.Unstructured) string {
	return u.GetKind() + "/" + u.GroupVersionKind().Group + "/" + u.GetNamespace() + "/" + u.GetName()
}

// redact replaces Secret values in the object and in kapp's copy of the applied manifest.
func redact(u *unstructured.Unstructured) *unstructured.Unstructured {
	if u.GetKind() != "Secret" || u.GroupVersionKind().Group != "" {
		return u
	}
	redactSecret(u.Object)
	ann := u.GetAnnotations()
	for _, k := range []string{kappconv.Original, corev1.LastAppliedConfigAnnotation} {
		orig, ok := ann[k]
		if !ok {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(orig), &m) != nil {
			delete(ann, k) // unreadable: drop rather than risk a value
			continue
		}
		redactSecret(m)
		bs, _ := json.Marshal(m)
		ann[k] = string(bs)
	}
	u.SetAnnotations(ann)
	return u
}

// redactSecret replaces data and stringData values; stringData moves into data, as the server
// stores it, so desired and live stay equal.
func redactSecret(m map[string]any) {
	data, _ := m["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k := range data {
		data[k] = Redacted
	}
	if sd, ok := m["stringData"].(map[string]any); ok {
		for k := range sd {
			data[k] = Redacted
		}
		delete(m, "stringData")
	}
	if len(data) > 0 {
		m["data"] = data
	}
}

// Desired recovers each object's applied manifest from kapp's annotation.
func Desired(live []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, l := range live {
		orig, ok := l.GetAnnotations()[kappconv.Original]
		if !ok {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(orig), &m) == nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	return out
}
