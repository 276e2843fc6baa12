package classify

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// consequences marks the fields of one resource's findings (fs) that the API server sets only
// because a person changed another field on the cluster (a drift): what the server makes of the
// manifest holding that change gives the live value, what it makes of the manifest alone does
// not. kubectl edit making a Service NodePort brings externalTrafficPolicy (SetDefaults_Service)
// and the node ports (allocated on that update, kept on later ones); sessionAffinity: ClientIP
// brings sessionAffinityConfig. Those were taken for "added during admission of kapp's write" or
// the server's own calculation, which rules copy: a rule then tied to the person's change
// (newcomer12 N12-4). Each is drift that follows its cause (Follows): kapp's deploy reverts it
// with that change, and where the rules keep the change, the server sets it again after every
// deploy (the verdict says so).
func (c *classifier) consequences(fc fieldContext, fs []Finding) {
	if fc.id.Group == "" && fc.id.Kind == "Secret" {
		return // values masked; nothing of a Secret is defaulted from another field
	}
	var drifts []int
	for i, f := range fs {
		if f.Class == Drift && len(f.Path) > 0 {
			drifts = append(drifts, i)
		}
	}
	if len(drifts) == 0 {
		return
	}
	var base *fielddiff.Lookup // what the server makes of the manifest, once asked
	for i := range fs {
		f := &fs[i]
		if f.Change != fielddiff.Added || len(f.Path) == 0 || !mayFollow(f.Class) {
			continue
		}
		if base == nil {
			made, ok := c.serverMakes(fc, fc.desired.Object)
			if !ok {
				return
			}
			base = fielddiff.NewLookup(made)
		}
		if v, ok := base.Get(f.Path); ok && fielddiff.Equal(v, f.Live) {
			continue // the manifest's own
		}
		var causes []int
		for _, j := range drifts {
			if j != i && !f.Path.HasPrefix(fs[j].Path) && !fs[j].Path.HasPrefix(f.Path) {
				causes = append(causes, j)
			}
		}
		if len(causes) == 0 || !c.gives(fc, fs, causes, *f) {
			continue
		}
		if len(causes) > 1 { // name the changes that give it alone, where some do
			var alone []int
			for _, j := range causes {
				if c.gives(fc, fs, []int{j}, *f) {
					alone = append(alone, j)
				}
			}
			if len(alone) > 0 {
				causes = alone
			}
		}
		var paths, owners []string
		for _, j := range causes {
			paths = append(paths, fs[j].Path.String())
			if o := fs[j].Owner; o != "" && !slices.Contains(owners, o) {
				owners = append(owners, o)
			}
		}
		f.Follows = paths
		by := "a change made on the cluster"
		if len(owners) > 0 {
			by = strings.Join(owners, ", ") + "'s change"
		}
		gives := fmt.Sprintf("the API server sets it for %s to %s: what it makes of the manifest holding that change gives it (its defaulting, and the node ports and cluster IPs a Service's update keeps: k8s.io/kubernetes %s), of the manifest alone not", by, strings.Join(paths, ", "), kappconv.Kubernetes)
		if f.Class == Drift {
			f.Evidence += "; " + gives
			continue
		}
		f.Class, f.Owner, f.Warning, f.DependsOn = Drift, strings.Join(owners, ", "), "", nil
		f.Evidence = gives + "; not added during kapp's write: it goes with that change"
	}
}

// mayFollow: a class a field the server sets for another field's drift may have been given
// (what the manifest alone does not explain, or a person's change made with it).
func mayFollow(c Class) bool {
	return c == Admission || c == Calculated || c == Unknown || c == Drift || c == Defaulted
}

// gives reports whether what the server makes of the manifest holding the live values of the
// drifts at causes gives f's live value.
func (c *classifier) gives(fc fieldContext, fs []Finding, causes []int, f Finding) bool {
	obj := runtime.DeepCopyJSON(fc.desired.Object)
	for _, j := range causes {
		if !setAt(obj, fs[j].Path, runtime.DeepCopyJSONValue(fs[j].Live)) {
			return false
		}
	}
	made, ok := c.serverMakes(fc, obj)
	if !ok {
		return false
	}
	v, ok := f.Path.Get(made)
	return ok && fielddiff.Equal(v, f.Live)
}

// setAt sets v at p in obj, adding a map key where its map exists; false where p leads nowhere.
func setAt(obj map[string]any, p fielddiff.Path, v any) bool {
	if p.Set(obj, v) {
		return true
	}
	last := p[len(p)-1]
	if last.FieldName == nil {
		return false
	}
	parent := any(obj)
	if len(p) > 1 {
		parent, _ = p[:len(p)-1].Get(obj)
	}
	m, ok := parent.(map[string]any)
	if ok {
		m[*last.FieldName] = v
	}
	return ok
}

// serverMakes is what the API server makes of obj, kapp's update of the live object: a v1
// Service prepared as the Service storage prepares an update (internalService: the node ports
// and cluster IPs it keeps from the live object), anything else defaulted as the server decodes
// it. ok is false where no defaulting is known or it fails.
func (c *classifier) serverMakes(fc fieldContext, obj map[string]any) (map[string]any, bool) {
	if fc.id.Group == "" && fc.id.Kind == "Service" && fc.desired.GetAPIVersion() == "v1" {
		old, ok := internalService(fc.live.Object, nil, false)
		if !ok {
			return nil, false
		}
		svc, ok := internalService(obj, old, true)
		if !ok {
			return nil, false
		}
		var v1 corev1.Service
		if err := legacyscheme.Scheme.Convert(svc, &v1, nil); err != nil {
			return nil, false
		}
		out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&v1)
		return out, err == nil
	}
	res, known, err := c.defaults.defaulted(&unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)})
	if err != nil || !known || res.out == nil {
		return nil, false
	}
	return res.out.Object, true
}
