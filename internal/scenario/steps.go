package scenario

// A scenario's steps after the deploy (patches as a person or controller would make them, waits
// for a controller's write) and the quiet state each one starts from.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

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

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
