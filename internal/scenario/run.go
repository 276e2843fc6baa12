package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Target is the cluster a scenario runs on.
type Target struct {
	Kubeconfig string
	Kapp       string    // the kapp binary
	Log        io.Writer // progress and kapp output; nil discards
	// ArgoCD applies objects as Argo CD's sync does, for scenarios Argo CD applies (hack/capture
	// provides it: only that program links Argo CD).
	ArgoCD ArgoCDApply
}

// ArgoCDApply applies obj as Argo CD's sync does for the Application app whose destination
// namespace is namespace, after stamping obj with Argo CD's tracking (obj is changed).
type ArgoCDApply func(ctx context.Context, app, namespace string, obj *unstructured.Unstructured, serverSide bool) error

// Result is what Run observed.
type Result struct {
	Live   []*unstructured.Unstructured // one per Scenario.Objects entry, same order
	Fields []Field
	// Version is the API server's GET /version body as it returned it (Write keeps it beside
	// live.yaml: the live objects are what that server made of desired.yaml), GitVersion its
	// gitVersion.
	Version    []byte
	GitVersion string
}

// Run deploys desired.yaml with `kapp deploy --wait=false` (there are no nodes, nothing becomes
// ready) into the scenario namespace, which it creates, runs the steps, reads the objects back and
// classifies every differing field. It leaves everything in place: call Cleanup.
//
// Classes come from each object's history, replayed from etcd (hack/cluster/start.sh runs the API
// server without watch cache or compaction): a field whose final value was there when the object
// was created is defaulted (or calculated, per Truth); otherwise the write that set it decides: a
// step's patch gets the step's class, another field manager M gets controller:M.
func (s *Scenario) Run(ctx context.Context, tg Target) (*Result, error) {
	r, err := newRunner(s, tg)
	if err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// Cleanup deletes the desired objects (in reverse order: custom resources before their CRD) and
// the namespace, without waiting for them to go. Not `kapp delete`: it waits for the Pods the
// garbage collector has not removed yet, and its discovery fails on an APIService without backend.
func (s *Scenario) Cleanup(ctx context.Context, tg Target) error {
	r, err := newRunner(s, tg)
	if err != nil {
		return err
	}
	if err := r.stopWebhook(ctx); err != nil {
		return err
	}
	if err := r.resolve(); err != nil {
		return err
	}
	bg := metav1.DeletePropagationBackground
	for i := len(r.objs) - 1; i >= 0; i-- {
		o := r.objs[i]
		err := r.client(o).Delete(ctx, o.desired.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	err = r.kube.CoreV1().Namespaces().Delete(ctx, s.Namespace, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

type runner struct {
	s    *Scenario
	tg   Target
	log  io.Writer
	dyn  dynamic.Interface
	kube kubernetes.Interface
	disc discovery.DiscoveryInterface

	objs []resolved
	// windows[i] is the cluster resourceVersion when phase i ended: 0 = deploy, i = step i.
	windows []int64
	// patchRVs maps the resourceVersion a step's patch produced to the step index.
	patchRVs map[string]int
}

type resolved struct {
	gvr     schema.GroupVersionResource
	desired *unstructured.Unstructured
}

func newRunner(s *Scenario, tg Target) (*runner, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", tg.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	r := &runner{s: s, tg: tg, log: tg.Log, patchRVs: map[string]int{}}
	if r.log == nil {
		r.log = io.Discard
	}
	if r.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if r.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	r.disc = r.kube.Discovery()
	return r, nil
}

func (r *runner) run(ctx context.Context) (*Result, error) {
	s := r.s
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.Namespace}}
	if _, err := r.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("%s: creating namespace: %w", s.Name, err)
	}
	if err := r.admissionReady(ctx); err != nil {
		return nil, err
	}
	start, err := r.clusterRV(ctx)
	if err != nil {
		return nil, err
	}
	if len(s.Before) > 0 {
		if err := r.applyBefore(ctx); err != nil {
			return nil, err
		}
	}
	if s.Adoption {
		return r.adopt(ctx, start)
	}
	if err := r.deploy(ctx); err != nil {
		return nil, err
	}
	if err := r.resolve(); err != nil {
		return nil, err
	}
	if err := r.settle(ctx); err != nil {
		return nil, err
	}
	if err := r.steps(ctx); err != nil {
		return nil, err
	}
	res, _, err := r.read(ctx, start)
	return res, err
}

// steps ends the window of the phase before them (kapp's deploy, or the Before applies of an
// Adoption scenario), runs each step in its own window and lets the cluster settle.
func (r *runner) steps(ctx context.Context) error {
	if err := r.endWindow(ctx); err != nil {
		return err
	}
	for i, st := range r.s.Steps {
		if err := r.step(ctx, i, st); err != nil {
			return fmt.Errorf("%s: step %d: %w", r.s.Name, i+1, err)
		}
		if err := r.endWindow(ctx); err != nil {
			return err
		}
	}
	if len(r.s.Steps) == 0 {
		return nil // settled already
	}
	return r.settle(ctx)
}

// read reads every object back and classifies its differing fields from its history since the
// cluster revision start; fields[i] are those of object i.
func (r *runner) read(ctx context.Context, start int64) (*Result, [][]Field, error) {
	body, err := r.disc.RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: GET /version: %w", r.s.Name, err)
	}
	var v version.Info
	if err := json.Unmarshal(body, &v); err != nil || v.GitVersion == "" {
		return nil, nil, fmt.Errorf("%s: GET /version: no gitVersion in %q (%v)", r.s.Name, body, err)
	}
	res := &Result{Version: body, GitVersion: v.GitVersion}
	var all [][]Field
	for _, o := range r.objs {
		live, err := r.get(ctx, o)
		if err != nil {
			return nil, nil, err
		}
		res.Live = append(res.Live, live)
		hist, err := r.history(ctx, o, start, live.GetResourceVersion())
		if err != nil {
			return nil, nil, err
		}
		fields, err := r.classify(o.desired, hist)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", r.s.Name, ResourceID(live), err)
		}
		all = append(all, fields)
		res.Fields = append(res.Fields, fields...)
	}
	return res, all, nil
}

// resolve maps every desired object to its resource through discovery (after the deploy, so that
// the scenario's CRDs are served) and sets the namespace kapp gave it.
func (r *runner) resolve() error {
	r.objs = nil
	cache := map[string]*metav1.APIResourceList{}
	for i, o := range r.s.Objects {
		d := o.Desired.DeepCopy()
		gv := d.GetAPIVersion()
		list := cache[gv]
		if list == nil {
			var err error
			if list, err = r.disc.ServerResourcesForGroupVersion(gv); err != nil {
				return fmt.Errorf("%s: discovery of %s: %w", r.s.Name, gv, err)
			}
			cache[gv] = list
		}
		var res *metav1.APIResource
		for j := range list.APIResources {
			if a := &list.APIResources[j]; a.Kind == d.GetKind() && !strings.Contains(a.Name, "/") {
				res = a
			}
		}
		if res == nil {
			return fmt.Errorf("%s: %s %s is not served", r.s.Name, gv, d.GetKind())
		}
		if res.Namespaced && d.GetNamespace() == "" {
			d.SetNamespace(r.s.Namespace)
		}
		r.s.Objects[i].Desired = d
		r.s.Objects[i].Resource = ResourceID(d)
		r.objs = append(r.objs, resolved{gvr: schema.FromAPIVersionAndKind(gv, d.GetKind()).GroupVersion().WithResource(res.Name), desired: d})
	}
	return nil
}

// admissionReady prepares what admission needs before the deploy: the scenario's webhook, and
// for Pods the namespace's default ServiceAccount, which the ServiceAccount admission plugin
// requires and kube-controller-manager creates shortly after the namespace.
func (r *runner) admissionReady(ctx context.Context) error {
	if r.s.Webhook != nil {
		if err := r.startWebhook(ctx); err != nil {
			return err
		}
	}
	for _, o := range r.s.Objects {
		if o.Desired.GetKind() != "Pod" {
			continue
		}
		for deadline := time.Now().Add(30 * time.Second); ; {
			_, err := r.kube.CoreV1().ServiceAccounts(r.s.Namespace).Get(ctx, "default", metav1.GetOptions{})
			if err == nil {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: no default ServiceAccount (is kube-controller-manager running?): %w", r.s.Name, err)
			}
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *runner) client(o resolved) dynamic.ResourceInterface {
	if ns := o.desired.GetNamespace(); ns != "" {
		return r.dyn.Resource(o.gvr).Namespace(ns)
	}
	return r.dyn.Resource(o.gvr)
}

func (r *runner) get(ctx context.Context, o resolved) (*unstructured.Unstructured, error) {
	return r.client(o).Get(ctx, o.desired.GetName(), metav1.GetOptions{})
}

// find resolves a step's resource reference to a desired object.
func (r *runner) find(ref string) (resolved, error) {
	gk, ns, name, err := parseRef(ref)
	if err != nil {
		return resolved{}, err
	}
	for _, o := range r.objs {
		d := o.desired
		if d.GroupVersionKind().GroupKind() == gk && d.GetName() == name && (ns == "" || ns == d.GetNamespace()) {
			return o, nil
		}
	}
	return resolved{}, fmt.Errorf("resource %q is not in desired.yaml", ref)
}

// history replays every revision of o since the cluster revision `since`, up to the one with
// resourceVersion last. This needs the API server to run without watch cache (a watch from an
// old resourceVersion then reads etcd's history) and without compaction.
func (r *runner) history(ctx context.Context, o resolved, since int64, last string) ([]*unstructured.Unstructured, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	w, err := r.client(o).Watch(ctx, metav1.ListOptions{
		ResourceVersion: fmt.Sprint(since),
		FieldSelector:   "metadata.name=" + o.desired.GetName(),
	})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	var out []*unstructured.Unstructured
	for ev := range w.ResultChan() {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("history of %s: unexpected watch event %s %v", ResourceID(o.desired), ev.Type, ev.Object)
		}
		out = append(out, u)
		if u.GetResourceVersion() == last {
			return out, nil
		}
	}
	return nil, fmt.Errorf("history of %s: revision %s not seen (is the watch cache disabled?)", ResourceID(o.desired), last)
}

func parseRV(rv string) (int64, error) {
	var n int64
	_, err := fmt.Sscan(rv, &n)
	if err != nil {
		return 0, fmt.Errorf("resourceVersion %q: %w", rv, err)
	}
	return n, nil
}
