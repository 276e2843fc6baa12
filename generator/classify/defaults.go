package classify

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	apiregistrationinstall "k8s.io/kube-aggregator/pkg/apis/apiregistration/install"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// The API server's own defaulting functions for every built-in group.
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

var aggregatorScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiregistrationinstall.Install(s)
	return s
}()

// schemeOf is the scheme of the server that serves group's built-in kinds, with its defaulters
// and internal types, and the Go module of that server's code: CustomResourceDefinitions are the
// apiextensions server's, APIServices kube-aggregator's, the rest kube-apiserver's.
func schemeOf(group string) (*runtime.Scheme, string) {
	switch group {
	case "apiextensions.k8s.io":
		return crdScheme, "k8s.io/apiextensions-apiserver"
	case "apiregistration.k8s.io":
		return aggregatorScheme, "k8s.io/kube-aggregator"
	}
	return legacyscheme.Scheme, "k8s.io/kubernetes"
}

// defaulter computes what the API server's defaulting makes of a desired object.
type defaulter struct {
	crds     crdSchemas
	crdsFrom string // Options.CRDsFrom
}

// defaults is what the API server makes of a desired object when it creates it.
type defaults struct {
	out       *unstructured.Unstructured // after the scheme's defaulting and conversion
	prepared  *typedObject               // out after the create strategy's PrepareForCreate; nil without one
	stored    *storage                   // what is stored (prepared, else out) after a storage round trip; nil for custom resources
	pruned    *unstructured.Unstructured // a custom resource without the fields its CRD's schema prunes; nil for other kinds
	crd       string                     // the name of that CRD
	mechanism string                     // the defaulting code and its version
	noCRD     bool                       // a custom resource whose CRD is not among the inputs
	strategy  string                     // the strategy's PrepareForCreate and its version, "" without one
}

// defaulted returns what the server makes of the desired object on create: defaulted, then
// prepared by its create strategy. ok is false when no defaulting is known for the kind. The
// stored object (nil for kinds stored as JSON) is trusted only for its absent empty values
// (protobuf drops some embedded fields).
func (d defaulter) defaulted(u *unstructured.Unstructured) (res defaults, ok bool, err error) {
	gvk := u.GroupVersionKind()
	if s := d.crds.lookup(gvk); s != nil {
		res.out, err = s.apply(u)
		res.pruned, res.crd = s.pruned(u), s.crdName
		res.mechanism = fmt.Sprintf("structural-schema defaulting of CRD %s (k8s.io/apiextensions-apiserver %s)", s.crdName, kappconv.Kubernetes)
		return res, err == nil, err
	}
	scheme, _ := schemeOf(gvk.Group)
	obj, err := scheme.New(gvk)
	if err != nil {
		switch crd, versions, _, _ := d.crds.versionsOf(gvk.GroupKind()); {
		case crd != "": // its CRD is among the inputs, without that version (probe15 held/w14)
			res.mechanism = fmt.Sprintf("CustomResourceDefinition %s, among the inputs, has no version %s (it has %s): nothing defaults the object there", crd, gvk.Version, strings.Join(versions, ", "))
		case scheme.IsGroupRegistered(gvk.Group):
			// a version of a built-in group k8s.io/kubernetes no longer has (autoscaling/v2beta2)
			res.mechanism = fmt.Sprintf("k8s.io/kubernetes %s has no %s at %s: nothing defaults the object there", kappconv.Kubernetes, gvk.Kind, gvk.GroupVersion())
		case gvk.Group != "": // a custom resource whose CRD is nowhere: say which one to pass
			from := cmp.Or(d.crdsFrom, "with --crd; rebasegen capture saves it in crds.yaml")
			res.mechanism = fmt.Sprintf("no CustomResourceDefinition for %s among the inputs (pass the CRD of kind %s, group %s, %s)", gvk.GroupKind(), gvk.Kind, gvk.Group, from)
			res.noCRD = true
		}
		return res, false, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return res, false, typeError(u.Object, scheme, gvk, err)
	}
	scheme.Default(obj)
	// The server stores what it decoded through its internal version: conversion sets fields
	// too (a pod template's deprecated serviceAccount from serviceAccountName).
	internalGV := schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal}
	internal, ierr := scheme.ConvertToVersion(obj, internalGV)
	if ierr == nil {
		if back, err := scheme.ConvertToVersion(internal, gvk.GroupVersion()); err == nil {
			obj = back
		}
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return res, false, err
	}
	res.out = &unstructured.Unstructured{Object: m}
	res.mechanism = fmt.Sprintf("defaulting and conversion of %s %s (k8s.io/kubernetes %s)", gvk.GroupVersion(), gvk.Kind, kappconv.Kubernetes)
	if s, ok := createStrategies[gvk.GroupKind()]; ok && ierr == nil {
		// conversion may share memory between versions: the strategy works on its own copy
		internal = internal.DeepCopyObject()
		if err := s.run(internal); err != nil {
			return res, false, fmt.Errorf("%s %s: %w", gvk.Kind, u.GetName(), err)
		}
		if back, err := scheme.ConvertToVersion(internal, gvk.GroupVersion()); err == nil {
			obj, res.prepared = back, &typedObject{obj: back}
			res.strategy = fmt.Sprintf("PrepareForCreate of %s (k8s.io/kubernetes %s %s)", s.resource, kappconv.Kubernetes, s.pkg)
		}
	}
	res.stored = &storage{scheme: scheme, gvk: gvk, obj: obj}
	return res, true, nil
}

// typedObject is an object of a Go type, read through a lookup made on first use. Performance:
// the prepared object's conversion to unstructured was paid by every pair of a kind with a create
// strategy, and only a field the defaulting alone does not explain asks it.
type typedObject struct {
	obj  runtime.Object // not modified after defaulted returns
	done bool
	at   *fielddiff.Lookup
}

// lookup returns the object's lookup; nil when there is none (t is nil, or the object does not
// convert).
func (t *typedObject) lookup() *fielddiff.Lookup {
	if t == nil {
		return nil
	}
	if !t.done {
		t.done = true
		if m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(t.obj); err == nil {
			t.at = fielddiff.NewLookup(m)
		}
		t.obj = nil
	}
	return t.at
}

// storage is what the server stores of an object, made on first use: only some differences
// (a declared empty or null value) ask it. Performance: made for every desired object, the
// protobuf round trip and its conversion were paid by pairs that never ask.
type storage struct {
	scheme *runtime.Scheme
	gvk    schema.GroupVersionKind
	obj    runtime.Object // not modified after defaulted returns
	done   bool
	at     *fielddiff.Lookup
}

// lookup returns the stored object's lookup; nil when there is none (s is nil, or the stored
// object does not convert).
func (s *storage) lookup() *fielddiff.Lookup {
	if s == nil {
		return nil
	}
	if !s.done {
		s.done = true
		if m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(throughStorage(s.scheme, s.obj)); err == nil {
			s.at = fielddiff.NewLookup(m)
		}
		s.obj = nil
	}
	return s.at
}

// unknown reports whether the object's Go type has no field at p, or v holds one it has not
// (a typo, `webhooks:` nested under a `spec:` the kind does not have): the API server drops such
// fields when it decodes the object (k8s.io/apimachinery runtime.DefaultUnstructuredConverter,
// whose validation mode, the one kubectl's --validate=strict asks of the server, names them). It
// decodes an object holding v at p alone, with the keys of the list items on the way.
func (s *storage) unknown(p fielddiff.Path, v any) bool {
	if s == nil || len(p) == 0 {
		return false
	}
	var build func(i int) (any, bool)
	build = func(i int) (any, bool) {
		if i == len(p) {
			return v, true
		}
		child, ok := build(i + 1)
		e := p[i]
		switch {
		case !ok:
			return nil, false
		case e.FieldName != nil:
			return map[string]any{*e.FieldName: child}, true
		case e.Key != nil && i+1 < len(p):
			item, ok := child.(map[string]any)
			if !ok {
				return nil, false
			}
			for _, f := range *e.Key {
				item[f.Name] = f.Value.Unstructured()
			}
			return []any{item}, true
		default: // an item by key, value or index: the item is child
			return []any{child}, true
		}
	}
	root, ok := build(0)
	obj, isMap := root.(map[string]any)
	typed, err := s.scheme.New(s.gvk)
	if !ok || !isMap || err != nil {
		return false
	}
	obj["apiVersion"], obj["kind"] = s.gvk.GroupVersion().String(), s.gvk.Kind
	return runtime.IsStrictDecodingError(runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj, typed, true))
}

// throughStorage round-trips an object through protobuf, as etcd storage does for built-in
// kinds: empty lists and maps come back nil and are no longer written (rules: [] disappears).
func throughStorage(scheme *runtime.Scheme, obj runtime.Object) runtime.Object {
	pb := protobuf.NewSerializer(scheme, scheme)
	var buf bytes.Buffer
	if err := pb.Encode(obj, &buf); err != nil {
		return obj // kinds without protobuf are stored as JSON
	}
	out, _, err := pb.Decode(buf.Bytes(), nil, nil)
	if err != nil {
		return obj
	}
	return out
}

// typeError names the field the converter could not decode: its own errors do not ("unrecognized
// type: string"); encoding/json, decoding the same object, reports the field's path. The error is
// a *load.Error without its Source (the caller's), its Steps locating the field in the document
// where one field's removal lets the object decode (failingField).
func typeError(obj map[string]any, scheme *runtime.Scheme, gvk schema.GroupVersionKind, err error) error {
	decoding := "decoding " + gvk.Kind + " for defaulting"
	js, jerr := json.Marshal(obj)
	typed, serr := scheme.New(gvk)
	if jerr != nil || serr != nil {
		return errors.New(decoding + ": " + err.Error())
	}
	decodes := func(o map[string]any) bool {
		typed, _ := scheme.New(gvk)
		return runtime.DefaultUnstructuredConverter.FromUnstructured(o, typed) == nil
	}
	at, steps, v, found := failingField(runtime.DeepCopyJSON(obj), decodes)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(json.Unmarshal(js, typed), &te) && te.Field != "":
		return &load.Error{Field: te.Field, Steps: steps, Msg: fmt.Sprintf("expected %s, got %s (%s)", te.Type, te.Value, decoding)}
	case found:
		// a value its type's own decoder refuses (a quantity "100x"): no type error names it
		// (newcomer15 N15-6)
		return &load.Error{Field: at, Steps: steps, Msg: fmt.Sprintf("%s: %s (%s)", shownValue(v), err, decoding)}
	}
	return errors.New(decoding + ": " + err.Error())
}

// failingField is the deepest field of root whose removal lets root decode (decodes), as a path,
// as the steps of that path (keys and indexes), and its value: the field whose value the decoder
// refuses. false when no one field's removal does.
func failingField(root map[string]any, decodes func(map[string]any) bool) (string, []any, any, bool) {
	var walk func(node any, at string, steps []any) (string, []any, any, bool)
	walk = func(node any, at string, steps []any) (string, []any, any, bool) {
		switch n := node.(type) {
		case map[string]any:
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				v := n[k]
				delete(n, k)
				fixed := decodes(root)
				n[k] = v
				if fixed {
					at, steps := strings.TrimPrefix(at+"."+k, "."), append(slices.Clip(steps), k)
					if deeper, ds, dv, ok := walk(v, at, steps); ok {
						return deeper, ds, dv, true
					}
					return at, steps, v, true
				}
			}
		case []any:
			for i, v := range n {
				n[i] = nil
				fixed := decodes(root)
				n[i] = v
				if fixed {
					at, steps := fmt.Sprintf("%s[%d]", at, i), append(slices.Clip(steps), i)
					if deeper, ds, dv, ok := walk(v, at, steps); ok {
						return deeper, ds, dv, true
					}
					return at, steps, v, true
				}
			}
		}
		return "", nil, nil, false
	}
	return walk(root, "", nil)
}

// shownValue is a scalar as an error quotes it; a map or list as its kind.
func shownValue(v any) string {
	switch v.(type) {
	case map[string]any:
		return "(a map)"
	case []any:
		return "(a list)"
	}
	bs, _ := json.Marshal(v)
	return string(bs)
}
