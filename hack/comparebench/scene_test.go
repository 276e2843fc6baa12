package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cisco-open/k8s-objectmatcher/patch"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/rebasegen/rebasegen/compare"
	"github.com/rebasegen/rebasegen/internal/comparetruth"
	"github.com/rebasegen/rebasegen/internal/testcluster"
)

// The controller scene (issue 29): a controller-runtime controller reconciles N parents (ConfigMaps
// naming an image), each owning a Deployment and a Service, in rounds: a resync of every parent
// (a generic event, as a periodic resync or a requeue makes), and in two of the rounds a real
// change of every parent's image. The Deployments' status is the kube-controller-manager's. Each
// way of deciding whether to write runs the same scene in a namespace of its own; for every
// reconcile and child the API server's dry run of the strategy's write says whether the write
// would change anything: the server's own floor of writes.
const (
	sceneParents = 10
	sceneRounds  = 10
	sceneManager = "scene-ctrl"
)

// sceneLabel marks the parents among the namespace's ConfigMaps (the controller-manager adds
// kube-root-ca.crt).
const sceneLabel = "scene.rebasegen.dev/role"

func isParent(o client.Object) bool { return o.GetLabels()[sceneLabel] == "parent" }

var sceneChangeRounds = map[int]bool{3: true, 7: true}

// strategy decides whether to write one child, and writes it.
type strategy struct {
	name string
	// ownsPredicate filters the watch of the children.
	ownsPredicate predicate.Predicate
	// write writes desired if the strategy decides to (live is the cached object, nil if there is
	// none); it returns the object the server returned, nil if it did not write.
	write func(ctx context.Context, cl client.Client, desired *unstructured.Unstructured, live client.Object) (client.Object, error)
	// dryRun is the strategy's write as a dry run on now, the object as the server holds it.
	dryRun func(ctx context.Context, cl client.Client, desired, now *unstructured.Unstructured) (*unstructured.Unstructured, error)
}

func apply(ctx context.Context, cl client.Client, desired *unstructured.Unstructured, opts ...client.ApplyOption) (*unstructured.Unstructured, error) {
	u := desired.DeepCopy()
	err := cl.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), append([]client.ApplyOption{client.FieldOwner(sceneManager), client.ForceOwnership}, opts...)...)
	return u, err
}

func applyDryRun(ctx context.Context, cl client.Client, desired, _ *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return apply(ctx, cl, desired, client.DryRunAll)
}

// annotated is desired with objectmatcher's last-applied annotation, as its README has the
// controller write it on every create and update.
func annotated(desired *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	typed, err := typedOf(desired)
	if err != nil {
		return nil, err
	}
	if err := patch.DefaultAnnotator.SetLastAppliedAnnotation(typed); err != nil {
		return nil, err
	}
	u := desired.DeepCopy()
	u.SetAnnotations(map[string]string{patch.LastAppliedConfig: typed.GetAnnotations()[patch.LastAppliedConfig]})
	return u, nil
}

func strategies(t *testing.T) []strategy {
	lib, err := compare.New(compare.WithApply(sceneManager))
	if err != nil {
		t.Fatal(err)
	}
	always := func(ctx context.Context, cl client.Client, desired *unstructured.Unstructured, _ client.Object) (client.Object, error) {
		return apply(ctx, cl, desired)
	}
	return []strategy{
		{name: "server-side apply always", write: always, dryRun: applyDryRun},
		{name: "server-side apply always, GenerationChangedPredicate", ownsPredicate: predicate.GenerationChangedPredicate{}, write: always, dryRun: applyDryRun},
		{name: "k8s-objectmatcher v1.10.0 (update when its patch is not empty)", write: func(ctx context.Context, cl client.Client, desired *unstructured.Unstructured, live client.Object) (client.Object, error) {
			if live != nil {
				want, err := typedOf(desired)
				if err != nil {
					return nil, err
				}
				res, err := patch.DefaultPatchMaker.Calculate(live, want, patch.IgnoreStatusFields())
				if err != nil || res.IsEmpty() {
					return nil, err
				}
			}
			u, err := annotated(desired)
			if err != nil {
				return nil, err
			}
			if live == nil {
				return u, cl.Create(ctx, u, client.FieldOwner(sceneManager))
			}
			u.SetResourceVersion(live.GetResourceVersion())
			return u, cl.Update(ctx, u, client.FieldOwner(sceneManager))
		}, dryRun: func(ctx context.Context, cl client.Client, desired, now *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			u, err := annotated(desired)
			if err != nil {
				return nil, err
			}
			u.SetResourceVersion(now.GetResourceVersion())
			return u, cl.Update(ctx, u, client.FieldOwner(sceneManager), client.DryRunAll)
		}},
		{name: "rebasegen compare (apply when NeedsWrite)", write: func(ctx context.Context, cl client.Client, desired *unstructured.Unstructured, live client.Object) (client.Object, error) {
			if live != nil {
				r, err := lib.Compare(desired, live)
				if err != nil || !r.NeedsWrite() {
					return nil, err
				}
			}
			return apply(ctx, cl, desired)
		}, dryRun: applyDryRun},
	}
}

func typedOf(u *unstructured.Unstructured) (client.Object, error) {
	o, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, o); err != nil {
		return nil, err
	}
	return o.(client.Object), nil
}

// children are the objects the controller writes for parent.
func children(parent *corev1.ConfigMap) []*unstructured.Unstructured {
	labels := map[string]any{"app": parent.Name}
	deployment := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": parent.Name, "namespace": parent.Namespace},
		"spec": map[string]any{
			"replicas": int64(1),
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"containers": []any{map[string]any{
					"name": "web", "image": parent.Data["image"], "ports": []any{map[string]any{"containerPort": int64(8080)}},
				}}},
			},
		},
	}
	service := map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": parent.Name, "namespace": parent.Namespace},
		"spec": map[string]any{
			"selector": labels,
			"ports":    []any{map[string]any{"name": "http", "port": int64(80), "targetPort": int64(8080)}},
		},
	}
	out := []*unstructured.Unstructured{{Object: deployment}, {Object: service}}
	for _, u := range out {
		u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: parent.Name, UID: parent.UID,
			Controller: ptr(true), BlockOwnerDeletion: ptr(true)}})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// counts of one scene, after the children were created and the cluster settled.
type counts struct {
	reconciles int
	writes     int // the controller's writes
	own        int // of which the server changed the object (a new resourceVersion)
	needed     int // the strategy's write as a dry run would have changed the object: the server's floor
	bumps      int // new resourceVersions of the children, by any writer (the controller-manager writes the Deployments' status)
	// skipped: the first write the strategy did not make though its dry run changes the object,
	// and what the dry run changes
	skipped string
}

type reconciler struct {
	cl       client.Client
	apiCl    client.Client // uncached: the live object the dry run is held to
	strategy strategy

	mu         sync.Mutex
	c          counts
	inflight   int
	lastActive time.Time
	err        error
}

func (r *reconciler) active(delta int) {
	r.mu.Lock()
	r.inflight += delta
	r.lastActive = time.Now()
	r.mu.Unlock()
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.active(1)
	defer r.active(-1)
	var c counts
	err := r.reconcile(ctx, req, &c)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.c.reconciles += c.reconciles
	r.c.needed += c.needed
	r.c.writes += c.writes
	r.c.own += c.own
	if r.c.skipped == "" {
		r.c.skipped = c.skipped
	}
	if err != nil && !apierrors.IsConflict(err) { // a conflict: the cache was behind, the request is retried
		r.err = fmt.Errorf("%s: %w", req, err)
	}
	return reconcile.Result{}, err
}

func (r *reconciler) reconcile(ctx context.Context, req reconcile.Request, c *counts) error {
	var parent corev1.ConfigMap
	if err := r.cl.Get(ctx, req.NamespacedName, &parent); err != nil || !isParent(&parent) {
		return client.IgnoreNotFound(err)
	}
	c.reconciles++
	for _, desired := range children(&parent) {
		key := client.ObjectKeyFromObject(desired)
		live, err := typedOf(desired)
		if err != nil {
			return err
		}
		if err := r.cl.Get(ctx, key, live); apierrors.IsNotFound(err) {
			live = nil
		} else if err != nil {
			return err
		} else {
			live.GetObjectKind().SetGroupVersionKind(desired.GroupVersionKind())
		}
		// the server's floor: would the write change the object as it is now?
		changes, now, err := r.floor(ctx, key, desired)
		if err != nil {
			return err
		}
		if now == nil || changes != "" {
			c.needed++
		}
		written, err := r.strategy.write(ctx, r.cl, desired, live)
		if written == nil && changes != "" && c.skipped == "" {
			c.skipped = changes
		}
		if written != nil {
			c.writes++
			if err == nil && (now == nil || written.GetResourceVersion() != now.GetResourceVersion()) {
				c.own++
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// floor says what the strategy's write of desired would change in the object as the server
// holds it now (nil: there is none). The object is read again when another writer (the
// controller-manager writing status) changed it between the read and the dry run.
func (r *reconciler) floor(ctx context.Context, key client.ObjectKey, desired *unstructured.Unstructured) (changes string, now *unstructured.Unstructured, err error) {
	for range 5 {
		now = &unstructured.Unstructured{}
		now.SetGroupVersionKind(desired.GroupVersionKind())
		if err := r.apiCl.Get(ctx, key, now); apierrors.IsNotFound(err) {
			return "", nil, nil
		} else if err != nil {
			return "", nil, err
		}
		after, err := r.strategy.dryRun(ctx, r.apiCl, desired, now)
		if err != nil {
			return "", nil, err
		}
		changes = ""
		if d := comparetruth.Differs(now, after); len(d) > 0 {
			changes = fmt.Sprintf("%s %s: %v %v", now.GetKind(), key, d, comparetruth.ChangedFields(now, after))
		}
		if after.GetResourceVersion() == now.GetResourceVersion() {
			break
		}
	}
	return changes, now, nil
}

// quiet waits until no reconcile has run for a while.
func (r *reconciler) quiet(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		r.mu.Lock()
		idle := r.inflight == 0 && time.Since(r.lastActive) > 3*time.Second
		err := r.err
		r.mu.Unlock()
		if err != nil {
			t.Fatalf("%s: %v", r.strategy.name, err)
		}
		if idle {
			return
		}
	}
	t.Fatalf("%s: still reconciling after 2 minutes", r.strategy.name)
}

func runScene(t *testing.T, cfg *rest.Config, s strategy, ns string) counts {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	apiCl, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := apiCl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	// no controller creates it in this cluster: the Deployments' Pods need it
	if err := apiCl.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache:   cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &reconciler{cl: mgr.GetClient(), apiCl: apiCl, strategy: s, lastActive: time.Now()}
	resync := make(chan event.GenericEvent)
	var owns []builder.OwnsOption
	if s.ownsPredicate != nil {
		owns = append(owns, builder.WithPredicates(s.ownsPredicate))
	}
	err = builder.ControllerManagedBy(mgr).Named(strings.ReplaceAll(ns, "-", "")).
		WithOptions(controller.Options{SkipNameValidation: ptr(true)}).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(isParent))).
		Owns(&appsv1.Deployment{}, owns...).
		Owns(&corev1.Service{}, owns...).
		WatchesRawSource(source.Channel(resync, &handler.EnqueueRequestForObject{})).
		Complete(r)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	parents := make([]*corev1.ConfigMap, sceneParents)
	for i := range parents {
		parents[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%d", i), Namespace: ns, Labels: map[string]string{sceneLabel: "parent"}},
			Data: map[string]string{"image": "nginx:1.27"}}
		if err := apiCl.Create(ctx, parents[i]); err != nil {
			t.Fatal(err)
		}
	}
	r.quiet(t) // the children created, the Deployments' status written

	// every change of the children from here on: the controller's writes and the
	// kube-controller-manager's
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var bumps sync.WaitGroup
	bumped := make([]int, 2)
	for i, gvr := range []schema.GroupVersionResource{{Group: "apps", Version: "v1", Resource: "deployments"}, {Version: "v1", Resource: "services"}} {
		w, err := dyn.Resource(gvr).Namespace(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		bumps.Add(1)
		go func() {
			defer bumps.Done()
			for ev := range w.ResultChan() {
				if ev.Type == watch.Modified {
					bumped[i]++
				}
			}
		}()
	}
	r.mu.Lock()
	r.c = counts{}
	r.mu.Unlock()
	for round := range sceneRounds {
		for _, p := range parents {
			if !sceneChangeRounds[round] {
				resync <- event.GenericEvent{Object: p}
				continue
			}
			var live corev1.ConfigMap
			if err := apiCl.Get(ctx, client.ObjectKeyFromObject(p), &live); err != nil {
				t.Fatal(err)
			}
			live.Data["image"] = fmt.Sprintf("nginx:1.%d", 28+round)
			if err := apiCl.Update(ctx, &live); err != nil {
				t.Fatal(err)
			}
		}
		r.active(0) // the round's events are queued: quiet waits from here
		r.quiet(t)
	}
	cancel()
	bumps.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.c
	c.bumps = bumped[0] + bumped[1]
	return c
}

// TestControllerScene (issue 29): writes and resourceVersion bumps per 100 reconciles, the
// library's writes at the server's own floor.
func TestControllerScene(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	c := testcluster.Start(t, testcluster.Options{ControllerManager: true})
	var rows []string
	results := map[string]counts{}
	strats := strategies(t)
	for i, s := range strats {
		got := runScene(t, c.Config, s, fmt.Sprintf("scene-%d", i))
		results[s.name] = got
		per := func(n int) string { return fmt.Sprintf("%d (%.0f)", n, 100*float64(n)/float64(max(got.reconciles, 1))) }
		rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s | %s | %s |", s.name, got.reconciles, per(got.writes), per(got.needed), per(got.own), per(got.bumps)))
		if got.skipped != "" {
			t.Logf("%s did not write where its own write changes the object, first: %s", s.name, got.skipped)
		}
	}
	t.Logf("%d parents, each a Deployment and a Service, %d rounds (a resync of every parent; its image changed in %d of them); counts (per 100 reconciles):\n"+
		"| approach | reconciles | writes | the server's floor (its dry run of the write changes the object) | writes giving a new resourceVersion | resourceVersion bumps of the children, any writer |\n|---|---|---|---|---|---|\n%s",
		sceneParents, sceneRounds, len(sceneChangeRounds), strings.Join(rows, "\n"))
	lib := results[strats[len(strats)-1].name]
	if lib.writes != lib.needed || lib.own != lib.writes {
		t.Errorf("the library wrote %d times (%d of them changing the object), the server's floor is %d", lib.writes, lib.own, lib.needed)
	}
	if want := len(sceneChangeRounds) * sceneParents; lib.needed != want { // the image is the Deployments'
		t.Errorf("the server's floor is %d writes, the scene changes the Deployments %d times", lib.needed, want)
	}
	for _, s := range strats[:len(strats)-1] {
		if results[s.name].writes < lib.writes {
			t.Errorf("%s wrote %d times, fewer than the library's %d", s.name, results[s.name].writes, lib.writes)
		}
	}
}
