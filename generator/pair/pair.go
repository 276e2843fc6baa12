package pair

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/rulesets"
)

const (
	kappOriginal  = "kapp.k14s.io/original"
	kappVersioned = "kapp.k14s.io/versioned"
)

// Pair is one resource present on both sides.
type Pair struct {
	ID      Identity
	Desired load.Object
	Live    load.Object
}

// Set is the result of pairing.
type Set struct {
	Pairs   []Pair
	Created []load.Object // desired only: kapp would create them
	Deleted []load.Object // live only: kapp would delete them (or they belong elsewhere)
	Configs []load.Object // kapp Config documents among the desired inputs: the package's own rules
	CRDs    []load.Object // CustomResourceDefinitions among all inputs, for schema defaulting
}

// Options control pairing.
type Options struct {
	Namespace string // for namespaced desired objects without one; "default" when empty
	Rules     *rulesets.Ruleset
}

// IsKappConfig reports whether an object is a kapp Config document rather than a resource.
func IsKappConfig(u *unstructured.Unstructured) bool {
	return u.GetAPIVersion() == "kapp.k14s.io/v1alpha1" && u.GetKind() == "Config"
}

// Build pairs desired with live objects. Without desired objects, each live object's desired
// state is recovered from the kapp.k14s.io/original annotation kapp stores on it.
func Build(desired, live []load.Object, opts Options) (*Set, error) {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	var err error
	if len(desired) == 0 {
		if desired, err = fromOriginals(live); err != nil {
			return nil, err
		}
	}
	set := &Set{}
	var resources []load.Object
	for _, d := range desired {
		if IsKappConfig(d.Unstructured) {
			set.Configs = append(set.Configs, d)
			continue
		}
		resources = append(resources, d)
	}
	scope := newScope(opts.Rules, append(append([]load.Object{}, resources...), live...))
	for _, o := range append(append([]load.Object{}, resources...), live...) {
		if o.GroupVersionKind().GroupKind() == crdGK {
			set.CRDs = append(set.CRDs, o)
		}
	}

	liveByID := map[Identity]load.Object{}
	liveVersion := map[Identity]int{}
	// The result must not depend on the order of the live objects (found by FuzzPair): plain
	// names are collected apart, a NAME-ver-N stands for a plain NAME next to it, and equal
	// versions (NAME-ver-1, NAME-ver-01) are decided by name.
	plain := map[Identity]load.Object{}
	for _, l := range live {
		id := scope.identity(l, "")
		base, ver := baseName(id.Name)
		if ver < 0 {
			if prev, dup := plain[id]; dup {
				return nil, fmt.Errorf("%s: duplicate live resource %s (also at %s)", l.Source, id, prev.Source)
			}
			plain[id] = l
			continue
		}
		// Keep the newest NAME-ver-N as the live copy of NAME.
		id.Name = base
		if prev, ok := liveVersion[id]; ok && (prev > ver || prev == ver && liveByID[id].GetName() < l.GetName()) {
			continue
		}
		liveVersion[id] = ver
		liveByID[id] = l
	}
	for id, l := range plain {
		if _, versioned := liveVersion[id]; !versioned {
			liveByID[id] = l
		}
	}

	seen := map[Identity]load.Object{}
	for _, d := range resources {
		id := scope.identity(d, opts.Namespace)
		if prev, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s: duplicate desired resource %s (also at %s)", d.Source, id, prev.Source)
		}
		seen[id] = d
		if scope.namespaced(id.Group, id.Kind) && d.GetNamespace() == "" {
			d = withNamespace(d, id.Namespace)
		}
		l, ok := liveByID[id]
		if !ok {
			set.Created = append(set.Created, d)
			continue
		}
		delete(liveByID, id)
		set.Pairs = append(set.Pairs, Pair{ID: id, Desired: d, Live: l})
	}
	for _, l := range liveByID {
		set.Deleted = append(set.Deleted, l)
	}
	sort.Slice(set.Pairs, func(i, j int) bool { return set.Pairs[i].ID.Less(set.Pairs[j].ID) })
	sortObjects(set.Created, scope)
	sortObjects(set.Deleted, scope)
	return set, nil
}

func withNamespace(o load.Object, ns string) load.Object {
	u := o.DeepCopy()
	u.SetNamespace(ns)
	return load.Object{Unstructured: u, Source: o.Source}
}

func sortObjects(objs []load.Object, s scope) {
	sort.Slice(objs, func(i, j int) bool { return s.identity(objs[i], "").Less(s.identity(objs[j], "")) })
}

// fromOriginals recovers desired objects from kapp's kapp.k14s.io/original annotation.
func fromOriginals(live []load.Object) ([]load.Object, error) {
	var out []load.Object
	for _, l := range live {
		orig, ok := l.GetAnnotations()[kappOriginal]
		if !ok {
			continue
		}
		objs, err := load.Bytes(l.Source.File, []byte(orig))
		if err != nil || len(objs) != 1 {
			return nil, &load.Error{Source: l.Source, Field: "metadata.annotations." + kappOriginal, Msg: fmt.Sprintf("not a Kubernetes object (%v)", err)}
		}
		objs[0].Source = l.Source
		out = append(out, objs[0])
	}
	if len(out) == 0 && len(live) > 0 {
		return nil, fmt.Errorf("no --desired given and no live object carries kapp's %s annotation to recover it from", kappOriginal)
	}
	return out, nil
}
