package scenario

// How objects reach the cluster: kapp deploys, the tools that applied them before kapp took them
// over (kubectl client-side and server-side, Helm-like, Argo CD-like), and what kapp changed when
// it did.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

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
		ann[corev1.LastAppliedConfigAnnotation] = string(bs) + "\n"
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
	if r.s.ArgoCD() {
		return r.deployArgoCD(ctx)
	}
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

// deployArgoCD applies the desired objects as Argo CD's sync does (Target.ArgoCD): CRDs first,
// then, once every kind is served, the others in desired.yaml's order (Argo CD's sync applies CRDs
// before custom resources and waits for each CRD it applied to be established). Each desired
// object becomes the one applied, Argo CD's tracking annotation on it: what Argo CD compares the
// live object with, and what its fields are classified against.
func (r *runner) deployArgoCD(ctx context.Context) error {
	if r.tg.ArgoCD == nil {
		return fmt.Errorf("%s: applier %s needs Target.ArgoCD (hack/capture provides it)", r.s.Name, r.s.Applier)
	}
	apply := func(i int) error {
		d := r.s.Objects[i].Desired.DeepCopy()
		if err := r.tg.ArgoCD(ctx, r.s.Name, r.s.Namespace, d, r.s.Applier == ApplierArgoCDServerSide); err != nil {
			return fmt.Errorf("%s: %w", r.s.Name, err)
		}
		r.s.Objects[i].Desired = d
		fmt.Fprintf(r.log, "  applied %s as Argo CD (%s)\n", ResourceID(d), r.s.Applier)
		return nil
	}
	crd := func(i int) bool { return r.s.Objects[i].Desired.GetKind() == "CustomResourceDefinition" }
	for i := range r.s.Objects {
		if crd(i) {
			if err := apply(i); err != nil {
				return err
			}
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; { // resolve sets each namespace, as Argo CD does
		err := r.resolve()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return err
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	for i := range r.s.Objects {
		if !crd(i) {
			if err := apply(i); err != nil {
				return err
			}
		}
	}
	return r.resolve()
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
