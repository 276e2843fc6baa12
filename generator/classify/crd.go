package classify

import (
	"fmt"
	"maps"
	"slices"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator/load"
)

var crdScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
}()

type crdSchema struct {
	crdName    string
	structural *structuralschema.Structural
	served     bool      // spec.versions[].served: the server serves the kind at this version
	desired    bool      // the CRD is among the desired objects (appliedCRDs)
	update     crdUpdate // the server's update validation of the version, compiled on first use
}

// crdSchemas holds the structural schema of every CRD version among the inputs.
type crdSchemas map[schema.GroupVersionKind]*crdSchema

func newCRDSchemas(crds []load.Doc) (crdSchemas, error) {
	out := crdSchemas{}
	for _, d := range crds {
		if d.APIVersion != "apiextensions.k8s.io/v1" {
			continue
		}
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, crd); err != nil {
			return nil, &load.Error{Source: o.Source, Msg: "invalid CustomResourceDefinition: " + err.Error()}
		}
		crdScheme.Default(crd)
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			internal := &apiextensionsinternal.CustomResourceValidation{}
			if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
				return nil, &load.Error{Source: o.Source, Field: "spec.versions." + v.Name + ".schema", Msg: err.Error()}
			}
			s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
			if err != nil {
				return nil, &load.Error{Source: o.Source, Field: "spec.versions." + v.Name + ".schema", Msg: "not a structural schema: " + err.Error()}
			}
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				return nil, &load.Error{Source: o.Source, Field: "spec.versions." + v.Name + ".schema", Msg: err.Error()}
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			status := v.Subresources != nil && v.Subresources.Status != nil
			out[gvk] = &crdSchema{crdName: crd.Name, structural: s, served: v.Served, update: crdUpdate{props: internal.OpenAPIV3Schema, status: status}}
		}
	}
	return out, nil
}

// StructuralSchemas are the structural schemas of every CRD version among crds, by the kind they
// serve, as defaulting reads them (an invalid CRD is the same error).
func StructuralSchemas(crds []load.Doc) (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
	c, err := newCRDSchemas(crds)
	if err != nil {
		return nil, err
	}
	out := make(map[schema.GroupVersionKind]*structuralschema.Structural, len(c))
	for gvk, s := range c {
		out[gvk] = s.structural
	}
	return out, nil
}

// appliedCRDs are the CRD versions the API server judges the custom resources of a deploy with:
// kapp applies the desired objects' CRDs before any custom resource (its default Config's change
// groups; measured: kapp v0.66.0 and kube-apiserver v1.37.2 refuse a Backup's update by a rule the
// same deploy added to its CRD, probe17 P17-2), so a group/kind with a desired CRD has that CRD's
// versions only (a version it drops is gone), any other the versions of inputs' CRDs.
func appliedCRDs(inputs crdSchemas, desired []load.Doc) (crdSchemas, error) {
	d, err := newCRDSchemas(desired)
	if err != nil {
		return nil, err
	}
	replaced := map[schema.GroupKind]bool{}
	for gvk, s := range d {
		s.desired, replaced[gvk.GroupKind()] = true, true
	}
	out := make(crdSchemas, len(inputs))
	for gvk, s := range inputs {
		if !replaced[gvk.GroupKind()] {
			out[gvk] = s
		}
	}
	maps.Copy(out, d)
	return out, nil
}

func (c crdSchemas) lookup(gvk schema.GroupVersionKind) *crdSchema { return c[gvk] }

// versionsOf names the CRD among the inputs of gk and its versions, sorted, those it serves
// too; crd is "" when there is none; desired: the CRD is a desired object's.
func (c crdSchemas) versionsOf(gk schema.GroupKind) (crd string, versions, served []string, desired bool) {
	for gvk, s := range c {
		if gvk.GroupKind() == gk {
			crd, versions, desired = s.crdName, append(versions, gvk.Version), s.desired
			if s.served {
				served = append(served, gvk.Version)
			}
		}
	}
	slices.Sort(versions)
	slices.Sort(served)
	return crd, versions, served, desired
}

// apply defaults a custom resource the way the server's customresource handler does.
func (s *crdSchema) apply(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if s.structural == nil {
		return nil, fmt.Errorf("no schema")
	}
	if ok, limit := withinDefaultingBudget(u.Object, s.structural); !ok {
		return nil, fmt.Errorf("structural-schema defaulting of CRD %s would make more than %d values of it (%d per value it holds, plus %d): a default copied into every item of a long list?",
			s.crdName, limit, defaultedPerValue, defaultedExtra)
	}
	out := u.DeepCopy()
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(out.Object, s.structural)
	structuraldefaulting.Default(out.Object, s.structural)
	return out, nil
}

// pruned is u without the fields its structural schema does not know, which the server drops
// when it decodes the object (k8s.io/apiextensions-apiserver pkg/apiserver/customresource_handler.go:
// structuralpruning.PruneWithOptions, before defaulting).
func (s *crdSchema) pruned(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := u.DeepCopy()
	structuralpruning.Prune(out.Object, s.structural, true)
	return out
}
