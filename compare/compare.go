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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

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

// statusWrite is what an update of a custom resource does with its status.
type statusWrite int

const (
	statusKept    statusWrite = iota + 1 // a status subresource: the update keeps live's status
	statusWritten                        // no status subresource: status is written as any field
	statusPruned                         // no status subresource and the schema prunes status
)

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
	du, err := toUnstructured(desired)
	if err != nil {
		return nil, fmt.Errorf("compare: desired: %w", err)
	}
	lu, err := toUnstructured(live)
	if err != nil {
		return nil, fmt.Errorf("compare: live: %w", err)
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
	rep, err := classify.Classify(set, classify.Options{Rules: c.rules})
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	res := rep.Resources[0]
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

// reordered returns the lists whose items desired declares in another order than live holds
// them (list items matched by their merge keys, as the comparison matches them): a write keeps
// the order it writes (an apply its own items', an update every item's), which a comparison by
// key does not see.
func reordered(desired, live *unstructured.Unstructured) []fielddiff.Path {
	var out []fielddiff.Path
	var walk func(d, l any, dp, lp fielddiff.Path)
	walk = func(d, l any, dp, lp fielddiff.Path) {
		switch dv := d.(type) {
		case map[string]any:
			lv, ok := l.(map[string]any)
			if !ok {
				return
			}
			for k, x := range dv {
				if y, ok := lv[k]; ok {
					e := fieldpath.PathElement{FieldName: &k}
					walk(x, y, append(dp[:len(dp):len(dp)], e), append(lp[:len(lp):len(lp)], e))
				}
			}
		case []any:
			lv, ok := l.([]any)
			if !ok {
				return
			}
			at := make(map[string]int, len(lv))
			for j := range lv {
				at[itemKey(live, lp, j)] = j
			}
			last, inOrder := -1, true
			for i := range dv {
				j, ok := at[itemKey(desired, dp, i)]
				if !ok {
					continue
				}
				if j < last {
					inOrder = false
				}
				last = j
				walk(dv[i], lv[j], append(dp[:len(dp):len(dp)], fieldpath.PathElement{Index: &i}), append(lp[:len(lp):len(lp)], fieldpath.PathElement{Index: &j}))
			}
			if !inOrder {
				out = append(out, fielddiff.ByKey(desired, dp))
			}
		}
	}
	walk(desired.Object, live.Object, nil, nil)
	slices.SortFunc(out, func(a, b fielddiff.Path) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// itemKey names the i-th item of the list at p (a path by index) as the comparison does: by
// its merge keys, its value in a set, or its index in an atomic list.
func itemKey(u *unstructured.Unstructured, p fielddiff.Path, i int) string {
	k := fielddiff.ByKey(u, append(p[:len(p):len(p)], fieldpath.PathElement{Index: &i}))
	return fieldpath.Path(k[len(k)-1:]).String()
}

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

// update judges an update (PUT): the desired object replaces the live one whole; the server
// defaults what it omits, and keeps status and its own metadata.
func (j *judgement) update(res classify.Resource) {
	for _, f := range res.Findings {
		if f.KappView {
			continue // the objects agree; only kapp reads them differently
		}
		if f.Change != fielddiff.Added {
			j.declared(f)
			continue
		}
		switch f.Class {
		case classify.Defaulted, classify.KappArtifact:
			j.add(f, Kept, "the update omits it and the server defaults it to the live value again")
		case classify.Calculated:
			j.add(f, Unknown, "the update omits a field the server calculated: whether the kind's update strategy keeps it cannot be known offline")
		case classify.Admission:
			j.add(f, Unknown, "the update omits a field admission added: whether admission adds it again cannot be known offline")
		case classify.Adoption:
			j.add(f, Unknown, "the update omits bookkeeping another tool or the server wrote: whether the server writes it again cannot be known offline")
		default:
			j.add(f, Removed, "the update omits it")
		}
	}
}

// statusOfVersion is what an update does with status in a version of a CRD (its subresources
// and schema).
func statusOfVersion(version map[string]any) statusWrite {
	if sub, ok, _ := unstructured.NestedFieldNoCopy(version, "subresources", "status"); ok && sub != nil {
		return statusKept
	}
	root, ok, _ := unstructured.NestedMap(version, "schema", "openAPIV3Schema")
	if !ok {
		return statusWritten
	}
	_, hasStatus, _ := unstructured.NestedFieldNoCopy(root, "properties", "status")
	keep, _, _ := unstructured.NestedBool(root, "x-kubernetes-preserve-unknown-fields")
	if !hasStatus && !keep {
		return statusPruned
	}
	return statusWritten
}

// statusWriteOf is what a write of the object itself does with the status of kind gvk: every
// built-in kind with a status has a status subresource, a custom resource's CRD says (0: no CRD
// given).
func (c *Comparer) statusWriteOf(gvk schema.GroupVersionKind) statusWrite {
	if scheme.Scheme.Recognizes(gvk) {
		return statusKept
	}
	return c.statusOf[gvk]
}

// status judges an update's status: a kind with a status subresource keeps live's; a custom
// resource whose CRD has none writes it as any field; without the CRD, which of the two cannot
// be known offline.
func (j *judgement) status(desired, live *unstructured.Unstructured, status statusWrite) {
	gvk := desired.GroupVersionKind()
	d, dok := desired.Object["status"]
	l := live.Object["status"]
	if sameJSON(d, l) {
		return
	}
	f := Field{Path: "status", Class: "unknown"}
	switch status {
	case statusKept, statusPruned:
		return
	case statusWritten:
		f.Effect = Set
		f.Evidence = "the CRD gives " + gvk.Version + " no status subresource: the update writes status as any other field"
		if !dok || d == nil {
			f.Effect = Removed
			f.Evidence = "the CRD gives " + gvk.Version + " no status subresource: the update omits status and the server removes it"
		}
	default:
		f.Effect = Unknown
		f.Evidence = "status differs and, without the CRD of " + gvk.Kind + " (WithCRDs), whether " + gvk.Version + " has a status subresource, which keeps live's status on an update, cannot be known offline"
	}
	j.fields = append(j.fields, f)
}

func sameJSON(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && string(x) == string(y)
}

// managedFields judges the managedFields an update carries: the server takes them in place of
// live's (apimachinery's FieldManager.Update): an empty list or one empty entry resets them, a
// list it decodes replaces them; omitted (or not decodable) they stay live's.
func (j *judgement) managedFields(desired, live *unstructured.Unstructured) error {
	raw, ok, _ := unstructured.NestedFieldNoCopy(desired.Object, "metadata", "managedFields")
	if !ok || raw == nil {
		return nil
	}
	want, err := managedEntries(desired)
	if err != nil {
		return fmt.Errorf("desired metadata.managedFields: %w", err)
	}
	have, err := managedEntries(live)
	if err != nil {
		return fmt.Errorf("live metadata.managedFields: %w", err)
	}
	reset := len(want) == 0 || len(want) == 1 && reflect.DeepEqual(want[0], metav1.ManagedFieldsEntry{})
	f := Field{Path: "metadata.managedFields", Effect: Set, Class: "managed"}
	switch {
	case reset && len(have) > 0:
		f.Evidence = "the update carries an empty managedFields entry, which resets them: the server drops live's"
	case reset:
		return nil
	case !decodable(want):
		return nil // the server keeps live's
	case !reflect.DeepEqual(want, have):
		f.Evidence = "the update carries managedFields other than live's: the server stores them in place of live's"
	default:
		return nil
	}
	j.fields = append(j.fields, f)
	return nil
}

// managedEntries are u's managedFields, with their fields as sets (not their JSON spelling).
func managedEntries(u *unstructured.Unstructured) ([]metav1.ManagedFieldsEntry, error) {
	raw, _, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields")
	list, ok := raw.([]any)
	if raw != nil && !ok {
		return nil, fmt.Errorf("a %T, not a list", raw)
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(list))
	for i, x := range list {
		var e metav1.ManagedFieldsEntry
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("entry %d is a %T, not an object", i, x)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &e); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if e.FieldsV1 != nil {
			s := fieldpath.NewSet()
			if err := s.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))); err != nil {
				return nil, fmt.Errorf("entry %d: fieldsV1: %w", i, err)
			}
			// the same set however its JSON is spelt
			b, err := s.ToJSON()
			if err != nil {
				return nil, fmt.Errorf("entry %d: fieldsV1: %w", i, err)
			}
			e.FieldsV1.Raw = b
		}
		out = append(out, e)
	}
	return out, nil
}

// decodable reports whether the server decodes entries (apimachinery's DecodeManagedFields): when
// it does not, it keeps live's managedFields.
func decodable(entries []metav1.ManagedFieldsEntry) bool {
	for _, e := range entries {
		if e.Operation != metav1.ManagedFieldsOperationApply && e.Operation != metav1.ManagedFieldsOperationUpdate ||
			e.APIVersion == "" || e.FieldsType != "FieldsV1" {
			return false
		}
	}
	return true
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
// typed object's from client-go's scheme when it has none set).
func toUnstructured(o runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := o.(*unstructured.Unstructured); ok {
		if u == nil {
			return nil, errors.New("a nil object")
		}
		// not u.DeepCopy: it panics on any value JSON does not have a type for, and objects built
		// by hand hold Go ints (unstructured.SetNestedField(o, 3, ...)), which the API server
		// reads as the JSON numbers they are
		m, err := jsonObject(u.Object)
		if err != nil {
			return nil, err
		}
		return &unstructured.Unstructured{Object: m}, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
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
