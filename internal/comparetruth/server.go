package comparetruth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// WritesFile lists, in compare/testdata/server, the writes of compare's tests on the objects of
// that directory and what the API server answered: compare's test judges them offline, the e2e
// test makes each live object again on a real API server and asks it again.
const WritesFile = "writes.yaml"

// ServerWrite is one write of WritesFile.
type ServerWrite struct {
	Name  string `json:"name"`
	About string `json:"about"`
	// CRD is the file of the CustomResourceDefinition the object is a resource of, created first.
	CRD string `json:"crd,omitempty"`
	// Steps are the writes that made the live object, in order.
	Steps []ServerStep `json:"steps"`
	// Live is the file of the object as the server returned it after the steps.
	Live  string     `json:"live"`
	Write ServerStep `json:"write"` // the judged write
	// Changed and Differs are the server's answer to the write's dry run (Truth's).
	Changed bool     `json:"changed"`
	Differs []string `json:"differs,omitempty"`

	// read from the files named
	CRDObject, LiveObject *unstructured.Unstructured `json:"-"`
}

// ServerStep is a write of an object in a namespace, given inline or as a file of the directory.
type ServerStep struct {
	Op      string         `json:"op"` // create (POST), apply (server-side apply, forced), update (PUT)
	Manager string         `json:"manager,omitempty"`
	File    string         `json:"file,omitempty"`
	Object  map[string]any `json:"object,omitempty"`
}

// ReadServerWrites reads dir's WritesFile, with the objects of the files it names.
func ReadServerWrites(dir string) ([]ServerWrite, error) {
	path := filepath.Join(dir, WritesFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ws []ServerWrite
	if err := yaml.UnmarshalStrict(b, &ws); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	read := func(file string) (*unstructured.Unstructured, error) {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(b, &u.Object); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return u, nil
	}
	for i := range ws {
		w := &ws[i]
		for _, s := range append([]*ServerStep{&w.Write}, pointers(w.Steps)...) {
			if s.File == "" {
				continue
			}
			u, err := read(s.File)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, w.Name, err)
			}
			s.Object = u.Object
		}
		// a live file not captured yet is nil: the e2e test with -record writes it
		if w.LiveObject, err = read(w.Live); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %s: %w", path, w.Name, err)
		}
		if w.CRD != "" {
			if w.CRDObject, err = read(w.CRD); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, w.Name, err)
			}
		}
	}
	return ws, nil
}

func pointers(steps []ServerStep) []*ServerStep {
	out := make([]*ServerStep, len(steps))
	for i := range steps {
		out[i] = &steps[i]
	}
	return out
}

// Replay makes w's live object again in namespace ns (its CRD first, then its steps) and asks the
// server, with a dry run of w's write, whether the write would change it. It returns the live
// object as the server returned it after the steps, and the server's answer.
func (c *Client) Replay(ctx context.Context, ns string, w ServerWrite) (*unstructured.Unstructured, Truth, error) {
	t := Truth{Server: c.version, Mode: Mode(w.Write.Op)}
	if w.CRDObject != nil {
		if err := c.ensureCRD(ctx, w.CRDObject); err != nil {
			return nil, t, err
		}
	}
	if err := c.namespace(ctx, ns); err != nil {
		return nil, t, err
	}
	for i, s := range w.Steps {
		if _, err := c.write(ctx, ns, s); err != nil {
			return nil, t, fmt.Errorf("step %d (%s as %s): %w", i+1, s.Op, s.Manager, err)
		}
	}
	desired := &unstructured.Unstructured{Object: deepCopy(w.Write.Object)}
	desired.SetNamespace(ns)
	r, _, err := c.resource(desired)
	if err != nil {
		return nil, t, err
	}
	live, err := r.Get(ctx, desired.GetName(), metav1.GetOptions{})
	if err != nil {
		return nil, t, err
	}
	after, err := c.write(ctx, ns, w.Write, metav1.DryRunAll)
	if err != nil {
		t.Rejected = err.Error()
		return live, t, nil
	}
	t.Differs = Differs(live, after)
	t.Fields = ChangedFields(live, after)
	t.Changed = len(t.Differs) > 0
	return live, t, nil
}

// write makes s in namespace ns; an update takes the uid and resourceVersion of the object the
// server holds (the files hold those of the server they were captured on).
func (c *Client) write(ctx context.Context, ns string, s ServerStep, dryRun ...string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: deepCopy(s.Object)}
	u.SetNamespace(ns)
	ri, _, err := c.resource(u)
	if err != nil {
		return nil, err
	}
	switch s.Op {
	case "create":
		return ri.Create(ctx, u, metav1.CreateOptions{FieldManager: s.Manager, DryRun: dryRun})
	case "apply":
		js, err := json.Marshal(u.Object)
		if err != nil {
			return nil, err
		}
		force := true
		return ri.Patch(ctx, u.GetName(), types.ApplyPatchType, js, metav1.PatchOptions{FieldManager: s.Manager, Force: &force, DryRun: dryRun})
	case "update":
		cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		u.SetUID(cur.GetUID())
		u.SetResourceVersion(cur.GetResourceVersion())
		return ri.Update(ctx, u, metav1.UpdateOptions{FieldManager: s.Manager, DryRun: dryRun})
	}
	return nil, fmt.Errorf("unknown op %q", s.Op)
}

// ensureCRD creates crd unless the server has it, and waits until it is served.
func (c *Client) ensureCRD(ctx context.Context, crd *unstructured.Unstructured) error {
	r := c.dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	// as a manifest: without what the server it was read from wrote
	crd = &unstructured.Unstructured{Object: map[string]any{"apiVersion": crd.GetAPIVersion(), "kind": crd.GetKind(),
		"metadata": map[string]any{"name": crd.GetName()}, "spec": crd.Object["spec"]}}
	if _, err := r.Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return c.established(ctx, crd.GetName())
}

// ObjectDiffers lists where two objects differ as the server holds them, apart from what differs
// from one server to the next: namespace, uid, resourceVersion, creationTimestamp and the times of
// managedFields.
func ObjectDiffers(a, b *unstructured.Unstructured) ([]string, error) {
	norm := func(u *unstructured.Unstructured) (map[string]any, error) {
		m := u.DeepCopy().Object
		for _, f := range []string{"namespace", "uid", "resourceVersion", "creationTimestamp"} {
			unstructured.RemoveNestedField(m, "metadata", f)
		}
		if mf, ok, _ := unstructured.NestedSlice(m, "metadata", "managedFields"); ok {
			for _, e := range mf {
				if e, ok := e.(map[string]any); ok {
					delete(e, "time")
				}
			}
			if err := unstructured.SetNestedSlice(m, mf, "metadata", "managedFields"); err != nil {
				return nil, err
			}
		}
		// through JSON: numbers read from YAML and from the server compare as numbers
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		var out map[string]any
		err = json.Unmarshal(b, &out)
		return out, err
	}
	x, err := norm(a)
	if err != nil {
		return nil, err
	}
	y, err := norm(b)
	if err != nil {
		return nil, err
	}
	out := changedFields("", x, y, nil)
	for _, f := range []string{"managedFields", "generation"} {
		vx, _, _ := unstructured.NestedFieldNoCopy(x, "metadata", f)
		vy, _, _ := unstructured.NestedFieldNoCopy(y, "metadata", f)
		if !reflect.DeepEqual(vx, vy) {
			out = append(out, "metadata."+f)
		}
	}
	return out, nil
}
