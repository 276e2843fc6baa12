package main

// What defaulting, conversion and the create strategy set on each object of the corpus.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defaultAll defaults every object its scheme knows.
func defaultAll(objs []object) []Defaults {
	var out []Defaults
	for _, o := range objs {
		s := schemeFor(o.gvk)
		if s == nil || !s.Recognizes(o.gvk) {
			continue
		}
		fields, prepared, err := defaultFields(s, o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", o.name, err)
			continue
		}
		out = append(out, Defaults{Name: o.name, APIVersion: o.gvk.GroupVersion().String(), Kind: o.gvk.Kind, Fields: fields, Prepared: prepared})
	}
	return out
}

// defaultFields defaults one object as rebasegen's classify does and returns the leaves that
// differ from the typed object before defaulting, and those its create strategy's
// PrepareForCreate then set or changed (nil for a kind without one).
func defaultFields(s *runtime.Scheme, o object) (fields, prepared map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("defaulting panicked: %v", r)
		}
	}()
	obj, err := s.New(o.gvk)
	if err != nil {
		return nil, nil, err
	}
	if o.u != nil {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.u.Object, obj); err != nil {
			return nil, nil, err
		}
	} else {
		fill(reflect.ValueOf(obj).Elem(), 0, map[reflect.Type]bool{})
	}
	obj.GetObjectKind().SetGroupVersionKind(o.gvk)
	base, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, nil, err
	}
	s.Default(obj)
	internal, ierr := s.ConvertToVersion(obj, schema.GroupVersion{Group: o.gvk.Group, Version: runtime.APIVersionInternal})
	if ierr == nil {
		if back, err := s.ConvertToVersion(internal, o.gvk.GroupVersion()); err == nil {
			obj = back
		}
	}
	defaulted, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, nil, err
	}
	fields = changed(base, defaulted)
	if st, ok := createStrategies[o.gvk.GroupKind()]; ok && ierr == nil {
		// as classify runs it: on a copy of the internal object (conversion may share memory),
		// without a request; then back to the object's version
		internal = internal.DeepCopyObject()
		st.s.PrepareForCreate(context.Background(), internal)
		back, err := s.ConvertToVersion(internal, o.gvk.GroupVersion())
		if err != nil {
			return nil, nil, err
		}
		after, err := runtime.DefaultUnstructuredConverter.ToUnstructured(back)
		if err != nil {
			return nil, nil, err
		}
		prepared = changed(defaulted, after)
		for p := range prepared {
			if p == "metadata.generation" || p == "status" || strings.HasPrefix(p, "status.") || strings.HasPrefix(p, "status[") {
				delete(prepared, p)
			}
		}
	}
	return fields, prepared, nil
}

// changed are the leaves of after that before lacks or holds another value at.
func changed(before, after map[string]any) map[string]any {
	was, now := map[string]any{}, map[string]any{}
	leaves(before, "", was)
	leaves(after, "", now)
	out := map[string]any{}
	for p, v := range now {
		if w, ok := was[p]; !ok || !reflect.DeepEqual(jsonValue(w), jsonValue(v)) {
			out[p] = requestTime(jsonValue(v))
		}
	}
	return out
}

// jsonValue is v as JSON reads it back (int64 and float64 alike as numbers).
func jsonValue(v any) any {
	bs, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(bs, &out)
	return out
}

// RequestTime stands for a timestamp defaulting took from the clock (a device taint's
// timeAdded): the same default whenever it runs.
const RequestTime = "(the time of the request)"

func requestTime(v any) any {
	if s, ok := v.(string); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil && time.Since(t).Abs() < time.Hour {
			return RequestTime
		}
	}
	return v
}

var word = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// leaves flattens v into out by path, as rebasegen writes paths: a.b, a["x/y"], a[0] (an item of
// a list of objects). Empty maps and lists of values are leaves.
func leaves(v any, p string, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 && p != "" {
			out[p] = t
		}
		for k, x := range t {
			q := p + "." + k
			if p == "" {
				q = k
			}
			if !word.MatchString(k) {
				q = fmt.Sprintf("%s[%q]", p, k)
			}
			leaves(x, q, out)
		}
	case []any:
		if !slices.ContainsFunc(t, func(x any) bool { _, ok := x.(map[string]any); return ok }) {
			out[p] = t // a list of values is one value, as rebasegen compares it
			return
		}
		for i, x := range t {
			leaves(x, fmt.Sprintf("%s[%d]", p, i), out)
		}
	default:
		out[p] = v
	}
}
