package kappglobal

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
)

// TestLinearCopyAsKapp: RebaseMod's copy rule does to a resource what kapp's FieldCopyMod does
// (the oracle: kapp's own code), errors and panics included, on random objects (lists shorter in
// one source, items that are not maps, nulls, scalars where maps are expected) and random paths
// (keys, every index, one index, regexes, a last part that is not a key) with every order of
// sources.
func TestLinearCopyAsKapp(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 4))
	key := func(s string) *ctlres.PathPart { return &ctlres.PathPart{MapKey: &s} }
	all := func() *ctlres.PathPart {
		yes := true
		return &ctlres.PathPart{ArrayIndex: &ctlres.PathPartArrayIndex{All: &yes}}
	}
	index := func(i int) *ctlres.PathPart {
		return &ctlres.PathPart{ArrayIndex: &ctlres.PathPartArrayIndex{Index: &i}}
	}
	regex := func(s string) *ctlres.PathPart { return &ctlres.PathPart{Regex: &ctlres.PathPartRegex{Regex: &s}} }
	paths := []ctlres.Path{
		{key("spec"), key("items"), all(), key("value")},
		{key("spec"), key("items"), all(), key("env"), all(), key("value")},
		{key("spec"), key("items"), index(1), key("value")},
		{key("spec"), key("items"), index(0), key("env"), index(2), key("value")},
		{key("spec"), regex("^(a|b)$")},
		{key("spec"), regex("^it"), all(), key("value")},
		{key("spec"), key("new"), key("deep")},
		{key("spec"), key("a")},
		{key("spec"), key("items"), all()},
		{key("spec"), key("items"), all(), index(0), key("x")},
		{key("spec")},
	}
	orders := [][]ctlres.FieldCopyModSource{{"new"}, {"existing"}, {"existing", "new"}, {"new", "existing"}}
	for i := range 1500 {
		objs := map[ctlres.FieldCopyModSource]map[string]any{"new": randomObject(rng), "existing": randomObject(rng)}
		path, sources := paths[rng.IntN(len(paths))], orders[rng.IntN(len(orders))]
		mod := ctlres.FieldCopyMod{ResourceMatcher: ctlres.AllMatcher{}, Path: path, Sources: sources}
		run := func(m ctlres.ResourceModWithMultiple) (out string) {
			srcs := map[ctlres.FieldCopyModSource]ctlres.Resource{}
			for s, o := range objs {
				srcs[s] = resource(t, o)
			}
			res := srcs["new"].DeepCopy()
			srcs["_current"] = res
			defer func() {
				if r := recover(); r != nil {
					out = fmt.Sprintf("panic: %v", r)
				}
			}()
			if err := m.ApplyFromMultiple(res, srcs); err != nil {
				return "error: " + err.Error()
			}
			bs, err := json.Marshal(res.UnstructuredObject())
			if err != nil {
				t.Fatal(err)
			}
			for s, o := range objs { // neither source changes
				before, _ := json.Marshal(o)
				if after, _ := json.Marshal(srcs[s].UnstructuredObject()); string(after) != string(before) {
					return fmt.Sprintf("source %s changed", s)
				}
			}
			return string(bs)
		}
		want, got := run(mod), run(RebaseMod(mod))
		if got != want {
			t.Fatalf("case %d, path %s from %v:\nnew %v\nexisting %v\nkapp: %s\nRebaseMod: %s", i, path.AsString(), sources, objs["new"], objs["existing"], want, got)
		}
	}
}

func resource(t *testing.T, obj map[string]any) ctlres.Resource {
	bs, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ctlres.NewResourceFromBytes(bs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// randomObject is a ConfigMap-shaped object whose spec holds items (a list of maps, each with
// a value and an env list), a and b, each at random absent, null, or of another type.
func randomObject(rng *rand.Rand) map[string]any {
	scalar := func() any {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return int64(rng.IntN(3))
		default:
			return fmt.Sprint("v", rng.IntN(3))
		}
	}
	list := func(item func() any) any {
		if rng.IntN(8) == 0 {
			return scalar()
		}
		l := []any{}
		for range rng.IntN(4) {
			l = append(l, item())
		}
		return l
	}
	entry := func() any {
		if rng.IntN(10) == 0 {
			return scalar()
		}
		m := map[string]any{}
		if rng.IntN(4) > 0 {
			m["value"] = scalar()
		}
		return m
	}
	item := func() any {
		if rng.IntN(10) == 0 {
			return scalar()
		}
		m := map[string]any{}
		if rng.IntN(4) > 0 {
			m["value"] = scalar()
		}
		if rng.IntN(3) > 0 {
			m["env"] = list(entry)
		}
		return m
	}
	spec := map[string]any{}
	if rng.IntN(5) > 0 {
		spec["items"] = list(item)
	}
	for _, k := range []string{"a", "b"} {
		if rng.IntN(2) == 0 {
			spec[k] = scalar()
		}
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x", "namespace": "ns"}}
	switch rng.IntN(10) {
	case 0:
	case 1:
		obj["spec"] = "s"
	default:
		obj["spec"] = spec
	}
	return obj
}

// A copy rule walks its source without copying it: what it allocates does not grow with the
// source object (a live object with its status and managedFields), only with the resource it
// rebases and the values it copies.
func TestLinearCopyDoesNotCopyTheSource(t *testing.T) {
	spec := map[string]any{"replicas": int64(3)}
	for i := range 2000 {
		spec[fmt.Sprintf("field%d", i)] = map[string]any{"value": fmt.Sprint(i)}
	}
	existing := resource(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}, "spec": spec})
	res := resource(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}, "spec": map[string]any{}})
	replicas := "replicas"
	mod := RebaseMod(ctlres.FieldCopyMod{ResourceMatcher: ctlres.AllMatcher{}, Sources: []ctlres.FieldCopyModSource{"existing"},
		Path: ctlres.Path{&ctlres.PathPart{MapKey: ptr("spec")}, &ctlres.PathPart{MapKey: &replicas}}})
	srcs := map[ctlres.FieldCopyModSource]ctlres.Resource{"existing": existing}
	allocs := testing.AllocsPerRun(20, func() {
		if err := mod.ApplyFromMultiple(res.DeepCopy(), srcs); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations", allocs)
	if allocs > 200 {
		t.Errorf("%.0f allocations to copy one field from a source of 2,000 fields", allocs)
	}
}

func ptr(s string) *string { return &s }
