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
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/escape"
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
	// ArgoApp, instead of App, selects the objects an Argo CD Application tracks: the name its
	// tracking writes (argocd.go).
	ArgoApp      string
	ArgoTracking Tracking
	Retries      int // per kind, on errors other than forbidden/not found and timeouts
	// RequestTimeout bounds each request (0: none): a server or proxy that accepts a request and
	// never answers would otherwise block the capture for ever.
	RequestTimeout time.Duration
	Progress       func(done, total int)
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
	// Desired is each object's applied manifest, as the tool that applied it recorded it.
	Desired []*unstructured.Unstructured
}

// Run captures the app.
func Run(ctx context.Context, cfg *rest.Config, opts Options) (*Result, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{} // deprecation warnings of kinds listed in passing
	if opts.RequestTimeout > 0 {
		cfg.Timeout = opts.RequestTimeout
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	label, keep, desiredKey := "", func(*unstructured.Unstructured) bool { return true }, kappconv.Original
	if opts.ArgoApp != "" {
		label, keep = argoSelector(opts.ArgoApp, opts.ArgoTracking)
		desiredKey = corev1.LastAppliedConfigAnnotation // what Argo CD's client-side apply sent
	} else if label, err = appLabel(ctx, core, opts); err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	resources, failed, err := listable(core.Discovery())
	if err != nil {
		return nil, err
	}
	for i := range failed {
		failed[i].Err = timedOut(failed[i].Err, opts.RequestTimeout)
	}
	res := &Result{Failures: failed}
	if res.ServerVersion, err = core.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw(); err != nil {
		return nil, fmt.Errorf("reading the API server's version (GET /version): %w", timedOut(err, opts.RequestTimeout))
	}
	// checked now, not when explain reads it back: a login page a proxy answered with would
	// otherwise be written as the server's version
	if _, err := load.ParseServerVersion(res.ServerVersion, "the body of GET /version"); err != nil {
		return nil, err
	}
	var captured []schema.GroupVersionResource
	for i, gvr := range resources {
		items, err := list(ctx, dyn, gvr, label, opts.Retries)
		if err != nil {
			res.Failures = append(res.Failures, Failure{Resource: gvr.String(), Err: timedOut(err, opts.RequestTimeout)})
		}
		n := len(res.Live)
		for j := range items {
			if transient(&items[j]) || !keep(&items[j]) {
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
	res.Desired = desired(res.Live, desiredKey)
	return res, nil
}

// timedOut says which limit a request ran into; the error names the request (method and URL).
func timedOut(err error, limit time.Duration) error {
	var ne net.Error
	if limit > 0 && errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("no answer within --request-timeout %s: %w", limit, err)
	}
	return err
}

// appLabel reads kapp's app ConfigMap (NAME, or NAME.apps.k14s.io once migrated).
func appLabel(ctx context.Context, core kubernetes.Interface, opts Options) (string, error) {
	for _, name := range []string{opts.App + kappconv.AppSuffix, opts.App} {
		cm, err := core.CoreV1().ConfigMaps(opts.Namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("reading kapp app %s/%s: %w", escape.Text(opts.Namespace), escape.Text(opts.App), err)
		}
		var meta struct {
			LabelKey   string `json:"labelKey"`
			LabelValue string `json:"labelValue"`
		}
		if err := json.Unmarshal([]byte(cm.Data["spec"]), &meta); err != nil || meta.LabelKey == "" {
			return "", fmt.Errorf("configmap %s/%s is not a kapp app (no spec.labelKey)", escape.Text(opts.Namespace), escape.Text(name))
		}
		return meta.LabelKey + "=" + meta.LabelValue, nil
	}
	return "", &NoApp{App: opts.App, Namespace: opts.Namespace, Apps: apps(ctx, core, opts.Namespace)}
}

// NoApp is the error for an app whose ConfigMap is not in the namespace given.
type NoApp struct {
	App, Namespace string
	// Apps are the kapp apps the cluster holds (every namespace's, or where listing them is
	// refused the namespace's), for a hint at the name or namespace meant (newcomer16 N16-5: a
	// wrong or missing -n, a misspelt app).
	Apps []types.NamespacedName
}

// Error names the app and namespace as given, escaped (escape.Text): a caller's, not a name the
// API server accepted.
func (e *NoApp) Error() string {
	return fmt.Sprintf("no kapp app %s in namespace %s (the objects of an Argo CD Application: --argocd-app)", escape.Text(e.App), escape.Text(e.Namespace))
}

// apps are the kapp apps the cluster holds, found as kapp lists them (the ConfigMaps labelled
// kapp.k14s.io/is-app), in every namespace, or in namespace where listing every one is
// refused; none where both are.
func apps(ctx context.Context, core kubernetes.Interface, namespace string) []types.NamespacedName {
	sel := metav1.ListOptions{LabelSelector: kappconv.IsAppLabel + "="}
	l, err := core.CoreV1().ConfigMaps("").List(ctx, sel)
	if err != nil {
		if l, err = core.CoreV1().ConfigMaps(namespace).List(ctx, sel); err != nil {
			return nil
		}
	}
	var out []types.NamespacedName
	for _, cm := range l.Items {
		if v, ok := cm.Labels[kappconv.IsAppLabel]; ok && v == "" {
			out = append(out, types.NamespacedName{Namespace: cm.Namespace, Name: strings.TrimSuffix(cm.Name, kappconv.AppSuffix)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// listable is every preferred resource that can be listed, minus subresources; failed are the
// group versions whose discovery failed (an aggregated API whose backend is down or does not
// answer): their kinds are not captured, as a kind whose list fails.
func listable(d discovery.DiscoveryInterface) (_ []schema.GroupVersionResource, failed []Failure, _ error) {
	lists, err := d.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, nil, fmt.Errorf("discovery: %w", err)
	}
	var gdf *discovery.ErrGroupDiscoveryFailed
	if errors.As(err, &gdf) {
		for gv, e := range gdf.Groups {
			failed = append(failed, Failure{Resource: gv.String() + " (discovery)", Err: e})
		}
		sort.Slice(failed, func(i, j int) bool { return failed[i].Resource < failed[j].Resource })
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
	return out, failed, nil
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
		if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
			break // a server that did not answer within the timeout keeps a retry waiting as long
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

// redact replaces Secret values in the object and in the copies of the applied manifest kapp
// and kubectl (Argo CD's client-side apply too) keep in its annotations.
func redact(u *unstructured.Unstructured) *unstructured.Unstructured {
	if u.GetKind() != "Secret" || u.GroupVersionKind().Group != "" {
		return u
	}
	redactSecret(u.Object)
	if ann := u.GetAnnotations(); ann != nil {
		u.SetAnnotations(redactApplied(ann, maxAppliedDepth))
	}
	return u
}

// maxAppliedDepth bounds how deep copies of applied manifests nest in each other's annotations
// (a manifest that kubectl applied, then given to kapp, carries kubectl's copy in kapp's).
const maxAppliedDepth = 4

// redactApplied redacts each copy of the applied manifest in a Secret's annotations. A copy is
// kept only when it is a Secret whose data and stringData are maps, the only shape whose values
// redactSecret knows where to find (and its own copies likewise); any other (not JSON, a List,
// data a string, nested too deep) is dropped whole, never copied: a value could be anywhere in it.
func redactApplied(ann map[string]string, depth int) map[string]string {
	for _, k := range []string{kappconv.Original, corev1.LastAppliedConfigAnnotation} {
		orig, ok := ann[k]
		if !ok {
			continue
		}
		var m map[string]any
		if depth == 0 || json.Unmarshal([]byte(orig), &m) != nil || !secretShaped(m) {
			delete(ann, k)
			continue
		}
		redactSecret(m)
		if meta, _ := m["metadata"].(map[string]any); meta != nil && meta["annotations"] != nil {
			inner := map[string]string{}
			for ik, iv := range meta["annotations"].(map[string]any) {
				inner[ik] = iv.(string) // secretShaped checked
			}
			meta["annotations"] = redactApplied(inner, depth-1)
		}
		bs, _ := json.Marshal(m)
		ann[k] = string(bs)
	}
	return ann
}

// secretShaped: a core Secret (as JSON decodes) whose data and stringData, metadata and its
// annotations are absent or maps, the annotations' values strings.
func secretShaped(m map[string]any) bool {
	if m["apiVersion"] != "v1" || m["kind"] != "Secret" {
		return false
	}
	for _, f := range []string{"data", "stringData", "metadata"} {
		if _, ok := m[f].(map[string]any); m[f] != nil && !ok {
			return false
		}
	}
	meta, _ := m["metadata"].(map[string]any)
	if meta == nil || meta["annotations"] == nil {
		return true
	}
	ann, ok := meta["annotations"].(map[string]any)
	if !ok {
		return false
	}
	for _, v := range ann {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// redactSecret replaces data and stringData values; stringData moves into data, as the server
// stores it, so desired and live stay equal. A data or stringData that is no map (no server
// returns one) is dropped: where its values are is not known.
func redactSecret(m map[string]any) {
	data, ok := m["data"].(map[string]any)
	if m["data"] != nil && !ok {
		delete(m, "data")
	}
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
	}
	delete(m, "stringData")
	if len(data) > 0 {
		m["data"] = data
	}
}

// desired recovers each object's applied manifest from the annotation key (kapp's original, or
// kubectl's last-applied configuration for Argo CD's client-side apply).
func desired(live []*unstructured.Unstructured, key string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	newest := map[string][2]int{} // a versioned resource's base key: its place in out and version
	for _, l := range live {
		orig, ok := l.GetAnnotations()[key]
		if !ok {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(orig), &m) != nil {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		name, ver := kappconv.Recovered(u.GetName(), u.GetAnnotations())
		if ver < 0 || key != kappconv.Original { // kubectl's record: no kapp versioning
			out = append(out, u)
			continue
		}
		// a versioned resource, named as its package names it (pair's fromOriginals): its
		// newest record only, the one kapp diffs (kapp keeps old versions live)
		id := u.GetAPIVersion() + "/" + u.GetKind() + "/" + u.GetNamespace() + "/" + name
		u.SetName(name)
		switch prev, ok := newest[id]; {
		case !ok:
			newest[id] = [2]int{len(out), ver}
			out = append(out, u)
		case prev[1] < ver:
			out[prev[0]], newest[id] = u, [2]int{prev[0], ver}
		}
	}
	return out
}
