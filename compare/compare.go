// Package compare answers a controller's question before it writes: would writing the desired
// object change the live one, and why? It judges offline, from the two objects alone: the live
// object's managedFields say who owns each field, Kubernetes' own defaulting code and CRD schema
// defaults say which differences the server fills back, and the write mode says what the write
// replaces (a server-side apply under the controller's field manager removes only the fields
// that manager owned and no longer declares; an update replaces the whole object).
//
// Each differing field comes with its effect, its class (why it differs) and the evidence, from
// the same classifier rebasegen explain uses. A difference nobody can predict offline (a
// mutating webhook, a field the server allocated) makes the verdict Unsure, never NoChange:
// write then. Secret values never appear in a Result.
//
// The package links neither kapp nor ytt, nor rebasegen's command-line library (urfave/cli).
package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/rulesets"
)

// Comparer compares desired objects with live ones. It is safe for concurrent use.
type Comparer struct {
	cfg   config
	rules *rulesets.Ruleset
	crdOf map[string]schema.GroupKind // the kind each CRD (by name) defines
	// what the main resource's update does with the status of each custom resource version
	statusOf map[schema.GroupVersionKind]statusWrite
	checked  sync.Map // schema.GroupVersionKind -> checked: checkIgnorePaths' answer
}

// New returns a Comparer. A write mode (WithApply or WithUpdate) is required.
func New(opts ...Option) (*Comparer, error) {
	var c config
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
	}
	if c.mode == 0 {
		return nil, errors.New("compare: no write mode: give WithApply(fieldManager) or WithUpdate()")
	}
	if c.minor != 0 && c.minor != KubernetesMinor() {
		return nil, fmt.Errorf("compare: Kubernetes 1.%d: this build judges with the defaults of Kubernetes 1.%d", c.minor, KubernetesMinor())
	}
	rs, err := rulesets.Load()
	if err != nil {
		return nil, fmt.Errorf("compare: the built-in rulesets: %w", err)
	}
	crdOf := map[string]schema.GroupKind{}
	statusOf := map[schema.GroupVersionKind]statusWrite{}
	for _, d := range c.crds {
		o, err := d.Object()
		if err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		crdOf[d.Name] = schema.GroupKind{Group: group, Kind: kind}
		versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
		for _, v := range versions {
			vm, _ := v.(map[string]any)
			name, _, _ := unstructured.NestedString(vm, "name")
			statusOf[schema.GroupVersionKind{Group: group, Version: name, Kind: kind}] = statusOfVersion(vm)
		}
	}
	return &Comparer{cfg: c, rules: rs, crdOf: crdOf, statusOf: statusOf}, nil
}

// Compare says whether writing desired, as the Comparer's write mode writes it, would change
// live, the object as the API server returned it (with its managedFields: without them an apply
// can only be judged Unsure). Both may be typed objects of client-go's scheme or unstructured;
// they must be the same resource (kind, namespace, name). Neither is modified.
func (c *Comparer) Compare(desired, live runtime.Object) (*Result, error) {
	if desired == nil || live == nil {
		return nil, errors.New("compare: desired and live are both required")
	}
	du, err := toUnstructured(desired, "desired")
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	lu, err := toUnstructured(live, "live")
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	if du.GetNamespace() == "" {
		du.SetNamespace(lu.GetNamespace())
	}
	if err := c.checkIgnorePaths(du.GroupVersionKind()); err != nil {
		return nil, err
	}
	dd, err := load.NewDoc(load.Object{Unstructured: du, Source: load.Source{File: "desired"}})
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	ld, err := load.NewDoc(load.Object{Unstructured: lu, Source: load.Source{File: "live"}})
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	// only the CRD of desired's kind: reading a CRD's schema is a good part of a comparison's cost
	var crds []load.Doc
	for _, d := range c.cfg.crds {
		if c.crdOf[d.Name] == du.GroupVersionKind().GroupKind() {
			crds = append(crds, d)
		}
	}
	set, err := pair.Build([]load.Doc{dd}, append([]load.Doc{ld}, crds...), pair.Options{Rules: c.rules})
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	if len(set.Pairs) != 1 {
		return nil, fmt.Errorf("compare: desired %s %s/%s and live %s %s/%s are not the same resource",
			du.GetKind(), du.GetNamespace(), du.GetName(), lu.GetKind(), lu.GetNamespace(), lu.GetName())
	}
	rep, err := classify.Classify(set, classify.Options{Rules: c.rules, CRDsFrom: "with WithCRDs"})
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	res := rep.Resources[0]
	res.Findings = append(slices.Clip(res.Findings), kappKeys(res, du, lu)...)
	var j judgement
	switch c.cfg.mode {
	case Apply:
		err = j.apply(res, du, lu, c.cfg.fieldManager, c.statusWriteOf(du.GroupVersionKind()))
	case Update:
		j.update(res)
		j.status(du, lu, c.statusWriteOf(du.GroupVersionKind()))
		err = j.managedFields(du, lu)
	}
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	for _, p := range reordered(du, lu) {
		j.fields = append(j.fields, Field{Path: p.String(), Effect: Set, Class: "order",
			Evidence: "the desired object declares the items of this list in another order than live holds them: the write puts them in its order"})
	}
	return c.result(j.fields), nil
}

// checkIgnorePaths refuses an ignore path that selects the items of a list of kind gvk otherwise
// than Field.Path names them (an item of a keyed list by its index): it would ignore nothing.
// Which lists are keyed depends on the kind, which New does not know.
func (c *Comparer) checkIgnorePaths(gvk schema.GroupVersionKind) error {
	if len(c.cfg.ignorePaths) == 0 {
		return nil
	}
	if v, ok := c.checked.Load(gvk); ok {
		return v.(checked).err
	}
	var err error
	for _, p := range c.cfg.ignorePaths {
		if list, want := fielddiff.Misaddressed(gvk, p.path); list != nil {
			err = fmt.Errorf("compare: WithIgnorePaths %q: in %s %s, %s is %s", p.given, gvk.GroupVersion(), gvk.Kind, list, want)
			break
		}
	}
	c.checked.Store(gvk, checked{err})
	return err
}

type checked struct{ err error }

// judgement is the fields of one comparison with their effects, before the options filter them.
type judgement struct {
	fields []Field
}

func (j *judgement) add(f classify.Finding, e Effect, evidence string) {
	if evidence == "" {
		evidence = f.Evidence
	} else if f.Evidence != "" {
		evidence += "; " + f.Evidence
	}
	j.fields = append(j.fields, Field{Path: f.Path.String(), Effect: e, Class: string(f.Class), Owner: f.Owner, Evidence: evidence})
}

// declared judges a field the desired object declares (with another value than live, or one
// live lacks): the write sets it, unless the server makes the live value of it again.
func (j *judgement) declared(f classify.Finding) {
	switch {
	case f.Change == fielddiff.Canonical:
		j.add(f, Kept, "the server stores the value in its canonical form, which live holds")
	case f.Class == classify.Defaulted || f.Class == classify.KappArtifact:
		j.add(f, Kept, "")
	case f.Class == classify.Admission:
		j.add(f, Unknown, "admission changed the written value; whether it does again on this write cannot be known offline")
	case f.Class == classify.Calculated:
		j.add(f, Unknown, "the server calculates this field; what it makes of the desired value depends on the kind's strategy")
	default:
		j.add(f, Set, "")
	}
}

// result applies the ignore options and decides the verdict.
func (c *Comparer) result(fields []Field) *Result {
	r := &Result{Verdict: NoChange}
	unsure := false
	for _, f := range fields {
		if c.ignored(f) {
			continue
		}
		r.Fields = append(r.Fields, f)
		switch f.Effect {
		case Set, Removed, Owned:
			r.Verdict = Changes
		case Unknown:
			unsure = true
		}
	}
	if unsure && r.Verdict == NoChange {
		r.Verdict = Unsure
	}
	return r
}

func (c *Comparer) ignored(f Field) bool {
	if f.Owner != "" && c.cfg.ignoreManagers[f.Owner] && f.Owner != c.cfg.fieldManager {
		return true
	}
	for _, p := range c.cfg.ignorePaths {
		if f.Path == p.text || strings.HasPrefix(f.Path, p.text+".") || strings.HasPrefix(f.Path, p.text+"[") {
			return true
		}
	}
	return false
}

// toUnstructured copies an object into an unstructured one, with its apiVersion and kind (a
// typed object's from client-go's scheme when it has none set), refusing what the command line
// refuses in a document (load.Check: nested too deep, too large, apiVersion, kind or name
// missing...): every later stage walks it recursively. role names it in errors.
func toUnstructured(o runtime.Object, role string) (*unstructured.Unstructured, error) {
	src := load.Source{File: role}
	if given, ok := o.(*unstructured.Unstructured); ok && given != nil {
		// before copying: a map holding itself would be copied without end, one holding a map in
		// many places copied as many times
		if err := load.Bounded(given.Object, src); err != nil {
			return nil, err
		}
	}
	u, err := copyObject(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", role, err)
	}
	// as the command line checks each document it reads
	if err := load.Check(load.Object{Unstructured: u, Source: src}); err != nil {
		return nil, err
	}
	return u, nil
}

func copyObject(o runtime.Object) (*unstructured.Unstructured, error) {
	if v := reflect.ValueOf(o); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("a nil %T", o)
	}
	if u, ok := o.(*unstructured.Unstructured); ok {
		// not u.DeepCopy: it panics on any value JSON does not have a type for, and objects built
		// by hand hold Go ints (unstructured.SetNestedField(o, 3, ...)), which the API server
		// reads as the JSON numbers they are
		m, err := jsonObject(u.Object)
		if err != nil {
			return nil, err
		}
		return &unstructured.Unstructured{Object: m}, nil
	}
	// as JSON, what the API server reads, and not runtime.DefaultUnstructuredConverter: it
	// recurses without end on a value holding itself through a pointer, which encoding/json refuses
	js, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("%T has no JSON form: %w", o, err)
	}
	var m map[string]any
	if err := utiljson.Unmarshal(js, &m); err != nil {
		return nil, fmt.Errorf("%T: %w", o, err)
	}
	u := &unstructured.Unstructured{Object: m}
	if gvk := o.GetObjectKind().GroupVersionKind(); gvk.Kind == "" {
		kinds, _, err := scheme.Scheme.ObjectKinds(o)
		if err != nil || len(kinds) == 0 {
			return nil, fmt.Errorf("%T has no apiVersion and kind, and is not a type of client-go's scheme", o)
		}
		u.SetGroupVersionKind(kinds[0])
	}
	return u, nil
}
