package comparetruth

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// Truth is the API server's answer for one case.
type Truth struct {
	Server string `json:"server"` // the API server's version
	Mode   Mode   `json:"mode"`
	// Changed: the dry run's object differs from the live one (Differs says where).
	Changed bool     `json:"changed"`
	Differs []string `json:"differs,omitempty"` // content, managedFields, generation
	// Fields are the content's changed fields (lists whole), at most 20.
	Fields []string `json:"fields,omitempty"`
	// Rejected: the server refused the write (its message); Changed is false then.
	Rejected string `json:"rejected,omitempty"`
}

// Client runs cases on one API server.
type Client struct {
	dyn     dynamic.Interface
	mapper  meta.ResettableRESTMapper
	version string
}

// NewClient connects to the API server of cfg.
func NewClient(cfg *rest.Config) (*Client, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 200, 400 // a throwaway cluster: client-side throttling would only slow the corpus down
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Client{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), version: v.GitVersion}, nil
}

// CRD creates the corpus CRD and waits until it is served; it returns the CRD as the server
// holds it.
func (c *Client) CRD(ctx context.Context) (*unstructured.Unstructured, error) {
	crd := &unstructured.Unstructured{Object: obj(CRDDoc)}
	r := c.dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := r.Create(ctx, crd, metav1.CreateOptions{FieldManager: Manager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	if err := c.established(ctx, crd.GetName()); err != nil {
		return nil, err
	}
	return r.Get(ctx, crd.GetName(), metav1.GetOptions{})
}

// established waits until the CRD named is served.
func (c *Client) established(ctx context.Context, name string) error {
	r := c.dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		got, err := r.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, cond := range conds {
			if m, _ := cond.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
				c.mapper.Reset()
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("CRD %s not established after 30s", name)
		}
	}
}

// resource is the dynamic client for o's kind, in ns when it is namespaced.
func (c *Client) resource(o *unstructured.Unstructured) (dynamic.ResourceInterface, bool, error) {
	gvk := o.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, false, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.dyn.Resource(m.Resource).Namespace(o.GetNamespace()), true, nil
	}
	return c.dyn.Resource(m.Resource), false, nil
}

// named is a copy of m named for case cs: objects of a namespaced kind are "web" in the case's
// namespace, cluster-scoped ones are named after the case.
func (c *Client) named(cs Case, m map[string]any) (*unstructured.Unstructured, dynamic.ResourceInterface, error) {
	u := &unstructured.Unstructured{Object: deepCopy(m)}
	u.SetNamespace(cs.Name)
	r, namespaced, err := c.resource(u)
	if err != nil {
		return nil, nil, err
	}
	if namespaced {
		u.SetName("web")
	} else {
		u.SetNamespace("")
		u.SetName(cs.Name)
	}
	return u, r, nil
}

// Run runs the case's steps, reads the object back, and asks the server whether the case's write
// would change it. It returns the object written (the case's desired object, named) and the live
// one.
func (c *Client) Run(ctx context.Context, cs Case) (desired, live *unstructured.Unstructured, t Truth, err error) {
	t = Truth{Server: c.version, Mode: cs.Mode}
	if err := c.namespace(ctx, cs.Name); err != nil {
		return nil, nil, t, err
	}
	desired, r, err := c.named(cs, cs.Desired)
	if err != nil {
		return nil, nil, t, err
	}
	for i, s := range cs.Steps {
		if err := c.step(ctx, cs, desired, s); err != nil {
			return nil, nil, t, fmt.Errorf("%s: step %d (%s as %s): %w", cs.Name, i+1, s.Op, s.Manager, err)
		}
	}
	live, err = r.Get(ctx, desired.GetName(), metav1.GetOptions{})
	if err != nil {
		return nil, nil, t, err
	}
	var after *unstructured.Unstructured
	switch cs.Mode {
	case Apply:
		js, err := json.Marshal(desired.Object)
		if err != nil {
			return nil, nil, t, err
		}
		force := true
		after, err = r.Patch(ctx, desired.GetName(), types.ApplyPatchType, js, metav1.PatchOptions{FieldManager: Manager, Force: &force, DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Rejected = err.Error()
		}
	case Update:
		put := desired.DeepCopy()
		put.SetResourceVersion(live.GetResourceVersion())
		after, err = r.Update(ctx, put, metav1.UpdateOptions{FieldManager: Manager, DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Rejected = err.Error()
		}
	default:
		return nil, nil, t, fmt.Errorf("%s: mode %q", cs.Name, cs.Mode)
	}
	if t.Rejected == "" {
		t.Differs = Differs(live, after)
		t.Fields = ChangedFields(live, after)
		t.Changed = len(t.Differs) > 0
	}
	return desired, live, t, nil
}

// Differs says which parts of the object a write changes: live before it, after the object the
// server returned (a dry run's): content, managedFields (without their times), generation.
func Differs(live, after *unstructured.Unstructured) []string {
	var out []string
	strip := func(u *unstructured.Unstructured) map[string]any {
		m := u.DeepCopy().Object
		unstructured.RemoveNestedField(m, "metadata", "managedFields")
		unstructured.RemoveNestedField(m, "metadata", "resourceVersion")
		unstructured.RemoveNestedField(m, "metadata", "generation")
		return m
	}
	if !reflect.DeepEqual(strip(live), strip(after)) {
		out = append(out, "content")
	}
	// without their times, which have a second's resolution: whether a write changing the object
	// falls in the same second as the one before it says nothing of the write
	mf := func(u *unstructured.Unstructured) []any {
		v, _, _ := unstructured.NestedSlice(u.Object, "metadata", "managedFields")
		for _, e := range v {
			if m, ok := e.(map[string]any); ok {
				delete(m, "time")
			}
		}
		return v
	}
	if !reflect.DeepEqual(mf(live), mf(after)) {
		out = append(out, "managedFields")
	}
	if live.GetGeneration() != after.GetGeneration() {
		out = append(out, "generation")
	}
	return out
}

// ChangedFields lists the content's fields a write changes (live before it, after the object the
// server returned), lists whole, at most 20.
func ChangedFields(live, after *unstructured.Unstructured) []string {
	return changedFields("", live.Object, after.Object, nil)
}

// changedFields lists the leaf fields whose values differ between a and b, maps walked key by
// key and lists compared whole, skipping what differs says apart (managedFields,
// resourceVersion, generation).
func changedFields(prefix string, a, b map[string]any, out []string) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for _, k := range sorted {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if p == "metadata.managedFields" || p == "metadata.resourceVersion" || p == "metadata.generation" || len(out) >= 20 {
			continue
		}
		am, aok := a[k].(map[string]any)
		bm, bok := b[k].(map[string]any)
		switch {
		case aok && bok:
			out = changedFields(p, am, bm, out)
		case !reflect.DeepEqual(a[k], b[k]):
			out = append(out, p)
		}
	}
	return out
}

func (c *Client) namespace(ctx context.Context, name string) error {
	ns := c.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	_, err := ns.Create(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// no controller-manager creates it: Pods need their service account
	sa := c.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}).Namespace(name)
	_, err = sa.Create(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "default"}}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

func (c *Client) step(ctx context.Context, cs Case, desired *unstructured.Unstructured, s Step) error {
	switch s.Op {
	case "apply", "create":
		u, r, err := c.named(cs, s.Object)
		if err != nil {
			return err
		}
		if s.Op == "create" {
			_, err = r.Create(ctx, u, metav1.CreateOptions{FieldManager: s.Manager})
			return err
		}
		js, err := json.Marshal(u.Object)
		if err != nil {
			return err
		}
		force := true
		_, err = r.Patch(ctx, u.GetName(), types.ApplyPatchType, js, metav1.PatchOptions{FieldManager: s.Manager, Force: &force})
		return err
	case "patch":
		r, _, err := c.resource(desired)
		if err != nil {
			return err
		}
		js, err := json.Marshal(s.Object)
		if err != nil {
			return err
		}
		pt := types.StrategicMergePatchType
		if cs.CRD || s.Subresource != "" {
			pt = types.MergePatchType
		}
		var sub []string
		if s.Subresource != "" {
			sub = []string{s.Subresource}
		}
		_, err = r.Patch(ctx, desired.GetName(), pt, js, metav1.PatchOptions{FieldManager: s.Manager}, sub...)
		return err
	}
	return fmt.Errorf("unknown op %q", s.Op)
}
