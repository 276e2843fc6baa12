package yttreads

// What a program reads of the resource it overlays (resource.yml, ytt's "left"): the object kapp's
// rebase holds when the rule runs, whose metadata kapp's built-in rules copied from the live object
// (generation, resourceVersion, managedFields...). ytt hands it to the overlay's match (by=) and
// via= functions as YAML fragments, for via a copy: each fragment is found again by its node's
// kind and position in resource.yml and given to the function traced from its path, as
// data.values are (source Left). overlay.subset reads the paths of the subset it is given.

import (
	"fmt"

	"carvel.dev/ytt/pkg/orderedmap"
	"carvel.dev/ytt/pkg/template"
	"carvel.dev/ytt/pkg/template/core"
	"carvel.dev/ytt/pkg/yamlmeta"
	"carvel.dev/ytt/pkg/yamltemplate"
	yttoverlay "carvel.dev/ytt/pkg/yttlibrary/overlay"
	"github.com/k14s/starlark-go/starlark"
	"github.com/k14s/starlark-go/starlarkstruct"
)

// Left is the source of the reads of the resource the overlay is applied to.
const Left = "left"

// lefts are the paths of the maps and lists of resource.yml, by kind and position.
type lefts struct {
	paths  map[string][]any
	shared map[string]bool // positions two nodes of a kind share: no one's
	t      *tracer
}

func newLefts(docs *yamlmeta.DocumentSet, t *tracer) *lefts {
	l := &lefts{paths: map[string][]any{}, shared: map[string]bool{}, t: t}
	for _, doc := range docs.Items {
		l.index(doc.Value, nil)
	}
	return l
}

func nodeKey(n yamlmeta.Node) string {
	return fmt.Sprintf("%T %s", n, n.GetPosition().AsCompactString())
}

func (l *lefts) index(v any, at []any) {
	switch n := v.(type) {
	case *yamlmeta.Map:
		l.add(n, at)
		for _, item := range n.Items {
			if k, ok := item.Key.(string); ok {
				l.index(item.Value, child(at, k))
			}
		}
	case *yamlmeta.Array:
		l.add(n, at)
		for i, item := range n.Items {
			l.index(item.Value, child(at, i))
		}
	}
}

// add records n at at.
func (l *lefts) add(n yamlmeta.Node, at []any) {
	if !n.GetPosition().IsKnown() {
		return
	}
	k := nodeKey(n)
	if _, dup := l.paths[k]; dup {
		l.shared[k] = true
	}
	l.paths[k] = at
}

// traced is v, an argument ytt hands a match or via function, traced where it is a map or list of
// resource.yml.
func (l *lefts) traced(v starlark.Value) starlark.Value {
	f, ok := v.(*yamltemplate.StarlarkFragment)
	if !ok {
		return v
	}
	data, _ := f.AsGoValue()
	n, ok := data.(yamlmeta.Node)
	if !ok {
		return v
	}
	switch n.(type) {
	case *yamlmeta.Map, *yamlmeta.Array:
	default:
		return v
	}
	k := nodeKey(n)
	at, found := l.paths[k]
	if !found || l.shared[k] {
		return v
	}
	plain := (&yamlmeta.Document{Value: n}).AsInterface()
	return l.t.wrap(Left, at, core.NewGoValueWithOpts(plain, core.GoValueOpts{MapIsStruct: true}).AsStarlarkValue())
}

// traceCalls makes the match and via functions of the overlay document doc see resource.yml's
// values traced.
func (l *lefts) traceCalls(v any) {
	if node, ok := v.(template.EvaluationNode); ok {
		anns := template.NewAnnotations(node)
		for _, name := range []template.AnnotationName{yttoverlay.AnnotationMatch, yttoverlay.AnnotationReplace, yttoverlay.AnnotationInsert, yttoverlay.AnnotationAssert} {
			for _, kw := range anns.Kwargs(name) {
				if fn, ok := kw[1].(starlark.Callable); ok && (kw[0] == starlark.String("by") || kw[0] == starlark.String("via")) {
					kw[1] = &tracedCall{real: fn, l: l}
				}
			}
		}
	}
	switch n := v.(type) {
	case *yamlmeta.Document:
		l.traceCalls(n.Value)
	case *yamlmeta.Map:
		for _, item := range n.Items {
			l.traceCalls(item)
			l.traceCalls(item.Value)
		}
	case *yamlmeta.Array:
		for _, item := range n.Items {
			l.traceCalls(item)
			l.traceCalls(item.Value)
		}
	}
}

// tracedCall is a match or via function given resource.yml's values traced.
type tracedCall struct {
	real starlark.Callable
	l    *lefts
}

func (c *tracedCall) Name() string          { return c.real.Name() }
func (c *tracedCall) String() string        { return c.real.String() }
func (c *tracedCall) Type() string          { return c.real.Type() }
func (c *tracedCall) Freeze()               {}
func (c *tracedCall) Truth() starlark.Bool  { return c.real.Truth() }
func (c *tracedCall) Hash() (uint32, error) { return c.real.Hash() }
func (c *tracedCall) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	traced := make(starlark.Tuple, len(args))
	for i, a := range args {
		traced[i] = c.l.traced(a)
	}
	return starlark.Call(thread, c.real, traced, kwargs)
}

// overlayModule is ytt's @ytt:overlay with subset's matchers recording the paths they compare.
func overlayModule(real starlark.StringDict, t *tracer) starlark.StringDict {
	m, ok := real["overlay"].(*starlarkstruct.Module)
	if !ok {
		return real
	}
	members := starlark.StringDict{}
	for k, v := range m.Members {
		members[k] = v
	}
	subset := m.Members["subset"]
	members["subset"] = starlark.NewBuiltin("overlay.subset", func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		matcher, err := starlark.Call(thread, subset, args, kwargs)
		if err != nil || args.Len() != 1 {
			return matcher, err
		}
		expected, err := core.NewStarlarkValue(args.Index(0)).AsGoValue()
		if err != nil {
			return nil, err
		}
		return &subsetMatcher{tracedCall: tracedCall{real: matcher.(starlark.Callable)}, expected: expected, t: t}, nil
	})
	return starlark.StringDict{"overlay": &starlarkstruct.Module{Name: m.Name, Members: members}}
}

// subsetMatcher is overlay.subset's matcher: given a traced value, it reads each path of the
// subset below it and compares the value itself.
type subsetMatcher struct {
	tracedCall
	expected any
	t        *tracer
}

func (s *subsetMatcher) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	args = append(starlark.Tuple(nil), args...)
	for i, a := range args {
		if m, ok := a.(*tracedMap); ok && i == 1 {
			for _, p := range leaves(s.expected, nil) {
				s.t.read(m.src, append(append([]any{}, m.at...), p...), Content)
			}
			args[i] = m.real
		}
	}
	return starlark.Call(thread, s.real, args, kwargs)
}

// leaves are the paths of the values v holds (a map's keys; a list compared whole).
func leaves(v any, at []any) [][]any {
	var out [][]any
	switch v := v.(type) {
	case *orderedmap.Map:
		v.Iterate(func(k, x any) {
			if ks, ok := k.(string); ok {
				out = append(out, leaves(x, child(at, ks))...)
			}
		})
	default:
		out = append(out, at)
	}
	return out
}
