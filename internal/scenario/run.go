package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// Target is the cluster a scenario runs on.
type Target struct {
	Kubeconfig string
	Kapp       string    // the kapp binary
	Log        io.Writer // progress and kapp output; nil discards
}

// Result is what Run observed.
type Result struct {
	Live   []*unstructured.Unstructured // one per Scenario.Objects entry, same order
	Fields []Field
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
	res := &Result{}
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

// applyBefore applies desired objects as other tools did before kapp takes them over.
func (r *runner) applyBefore(ctx context.Context) error {
	if err := r.resolve(); err != nil {
		return err
	}
	for i, a := range r.s.Before {
		if err := r.applyAs(ctx, a); err != nil {
			return fmt.Errorf("%s: before %d: %w", r.s.Name, i+1, err)
		}
	}
	return r.settle(ctx)
}

func (r *runner) applyAs(ctx context.Context, a Apply) error {
	o, err := r.find(a.Resource)
	if err != nil {
		return err
	}
	bs, err := o.desired.MarshalJSON()
	if err != nil {
		return err
	}
	if len(a.Merge) > 0 {
		if bs, err = jsonpatch.MergePatch(bs, a.Merge); err != nil {
			return err
		}
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(bs); err != nil {
		return err
	}
	if a.Mode == "server-side" {
		force := true
		_, err = r.client(o).Patch(ctx, u.GetName(), types.ApplyPatchType, bs, metav1.PatchOptions{FieldManager: a.FieldManager, Force: &force})
	} else {
		// kubectl apply (client-side) records the manifest as applied, then creates the object
		// (k8s.io/kubectl pkg/util/apply.go CreateApplyAnnotation)
		ann := u.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[lastApplied] = string(bs) + "\n"
		u.SetAnnotations(ann)
		_, err = r.client(o).Create(ctx, u, metav1.CreateOptions{FieldManager: a.FieldManager})
	}
	if err == nil {
		fmt.Fprintf(r.log, "  applied %s as %s (%s)\n", a.Resource, a.FieldManager, a.Mode)
	}
	return err
}

// changedByKapp returns the paths kapp's own writes changed since revision before of o (not what
// controllers did next, such as the Deployment controller's rollout after kapp relabels the pod
// template).
func (r *runner) changedByKapp(ctx context.Context, o resolved, before *unstructured.Unstructured) ([]fielddiff.Path, error) {
	after, err := r.get(ctx, o)
	if err != nil {
		return nil, err
	}
	if after.GetResourceVersion() == before.GetResourceVersion() {
		return nil, nil
	}
	from, err := parseRV(before.GetResourceVersion())
	if err != nil {
		return nil, err
	}
	hist, err := r.history(ctx, o, from, after.GetResourceVersion()) // the revisions after before
	if err != nil {
		return nil, err
	}
	hist = append([]*unstructured.Unstructured{before}, hist...)
	var out []fielddiff.Path
	for k := 1; k < len(hist); k++ {
		if !slices.Contains(writers(hist[k-1], hist[k]), "kapp") {
			continue
		}
		ps, err := diffPaths(hist[k-1], hist[k], true)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// adopt reads the objects as the earlier tools and the steps left them, then deploys with kapp:
// the differing fields kapp's deploy changed are what kapp changes once when it takes an object
// over.
func (r *runner) adopt(ctx context.Context, start int64) (*Result, error) {
	if err := r.steps(ctx); err != nil {
		return nil, err
	}
	res, fields, err := r.read(ctx, start)
	if err != nil {
		return nil, err
	}
	if err := r.deploy(ctx); err != nil {
		return nil, err
	}
	if err := r.settle(ctx); err != nil {
		return nil, err
	}
	res.Fields = nil
	for i, o := range r.objs {
		changed, err := r.changedByKapp(ctx, o, res.Live[i])
		if err != nil {
			return nil, err
		}
		for _, f := range fields[i] {
			for _, c := range changed {
				if c.String() == f.Path || strings.HasPrefix(c.String(), f.Path+".") || strings.HasPrefix(c.String(), f.Path+"[") {
					f.Class = ClassAdoption
					break
				}
			}
			res.Fields = append(res.Fields, f)
		}
	}
	return res, nil
}

// deploy runs `kapp deploy --wait=false`: nothing ever becomes ready without nodes. Without waiting
// kapp would create custom resources before their CRD is established, so CRDs go first, in a
// deploy that waits for them; the full deploy then leaves them untouched.
func (r *runner) deploy(ctx context.Context) error {
	args := []string{"deploy", "-a", r.s.Name, "-n", r.s.Namespace, "-f", "desired.yaml", "--yes"}
	for _, o := range r.s.Objects {
		if o.Desired.GetKind() == "CustomResourceDefinition" {
			if err := r.kapp(ctx, append(args, "--filter-kind", "CustomResourceDefinition")...); err != nil {
				return err
			}
			break
		}
	}
	return r.kapp(ctx, append(args, "--wait=false")...)
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

// settle waits until no object of the scenario has changed for a second, so that each step starts
// from a quiet state (at most 20s: some controllers never stop writing status).
func (r *runner) settle(ctx context.Context) error {
	var last string
	quietSince := time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		var rvs strings.Builder
		for _, o := range r.objs {
			u, err := r.get(ctx, o)
			if err != nil {
				return err
			}
			rvs.WriteString(u.GetResourceVersion() + ",")
		}
		if rvs.String() != last {
			last, quietSince = rvs.String(), time.Now()
		} else if time.Since(quietSince) >= time.Second {
			return nil
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// clusterRV is etcd's current revision: without watch cache a list is read from etcd.
func (r *runner) clusterRV(ctx context.Context) (int64, error) {
	l, err := r.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return 0, err
	}
	return parseRV(l.ResourceVersion)
}

func (r *runner) endWindow(ctx context.Context) error {
	rv, err := r.clusterRV(ctx)
	r.windows = append(r.windows, rv)
	return err
}

func (r *runner) step(ctx context.Context, i int, st Step) error {
	switch {
	case st.Patch != nil:
		return r.patch(ctx, i, st.Patch)
	case st.WaitFor != nil:
		return r.waitFor(ctx, st.WaitFor)
	default:
		args := make([]string, len(st.Kapp.Args))
		for j, a := range st.Kapp.Args {
			args[j] = os.Expand(a, func(k string) string {
				return map[string]string{"APP": r.s.Name, "NS": r.s.Namespace}[k]
			})
		}
		return r.kapp(ctx, args...)
	}
}

func (r *runner) patch(ctx context.Context, i int, p *Patch) error {
	o, err := r.find(p.Resource)
	if err != nil {
		return err
	}
	body := []byte(p.Patch)
	opts := metav1.PatchOptions{FieldManager: p.FieldManager}
	pt, ok := map[string]types.PatchType{"merge": types.MergePatchType, "json": types.JSONPatchType,
		"strategic": types.StrategicMergePatchType, "apply": types.ApplyPatchType}[p.Type]
	if !ok {
		return fmt.Errorf("patch type %q: want merge, json, strategic or apply", p.Type)
	}
	if pt == types.ApplyPatchType {
		// an apply configuration names its object; fill that in so scenarios need not repeat it
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return err
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion(o.desired.GetAPIVersion())
		u.SetKind(o.desired.GetKind())
		u.SetName(o.desired.GetName())
		if body, err = u.MarshalJSON(); err != nil {
			return err
		}
		force := true // take fields from their current owners, as a controller would
		opts.Force = &force
	}
	var sub []string
	if p.Subresource != "" {
		sub = []string{p.Subresource}
	}
	out, err := r.client(o).Patch(ctx, o.desired.GetName(), pt, body, opts, sub...)
	if err != nil {
		return err
	}
	// a scale subresource answers with a Scale carrying the object's new resourceVersion
	r.patchRVs[out.GetResourceVersion()] = i
	fmt.Fprintf(r.log, "  patched %s as %s (%s)\n", p.Resource, p.FieldManager, p.Type)
	return nil
}

func (r *runner) waitFor(ctx context.Context, w *WaitFor) error {
	o, err := r.find(w.Resource)
	if err != nil {
		return err
	}
	keys, err := mapKeys(w.Path)
	if err != nil {
		return err
	}
	timeout := w.Timeout.Duration
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	var want []byte
	if len(w.Value) > 0 {
		var v any
		if err := json.Unmarshal(w.Value, &v); err != nil {
			return err
		}
		want, _ = json.Marshal(v) // normalised, to compare with the live value's encoding
	}
	t0 := time.Now()
	var got []byte
	for deadline := t0.Add(timeout); time.Now().Before(deadline); {
		u, err := r.get(ctx, o)
		if err != nil {
			return err
		}
		v, _, _ := unstructured.NestedFieldNoCopy(u.Object, keys...)
		got, _ = json.Marshal(v)
		if bytes.Equal(got, want) || want == nil && !bytes.Equal(got, []byte("null")) && !bytes.Equal(got, []byte("[]")) && !bytes.Equal(got, []byte("{}")) {
			fmt.Fprintf(r.log, "  %s %s = %.60s after %.1fs\n", w.Resource, w.Path, got, time.Since(t0).Seconds())
			return nil
		}
		if err := sleep(ctx, 250*time.Millisecond); err != nil {
			return err
		}
	}
	return fmt.Errorf("waitFor %s %s = %s: still %s after %s", w.Resource, w.Path, want, got, timeout)
}

func (r *runner) kapp(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, r.tg.Kapp, args...)
	cmd.Args[0] = "kapp" // kapp's field manager is its argv[0]: "kapp", as for users
	cmd.Dir = r.s.Dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+r.tg.Kubeconfig)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("kapp %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	fmt.Fprintf(r.log, "  kapp %s: ok\n", strings.Join(args, " "))
	return nil
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

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
