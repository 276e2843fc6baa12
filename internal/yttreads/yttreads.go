// Package yttreads says what a ytt rebase rule's program reads of the sources kapp gives it
// (data.values.new, data.values.existing): the overlay is evaluated as kapp's yttresmod evaluates
// it (resource.yml overlaid by overlay.yml, the sources as data values), with data.values a view
// that records every value the program takes from it. The mutation check judges a hand-written
// ytt rule by the values it changes; what the rule decides on beyond those (the live object's
// status, kapp's own annotations, a live value of another field, the text of the value changed)
// is state the check never explores, so its verdict there is luck (issue 23, probe12).
package yttreads

import (
	"fmt"
	"strings"

	"carvel.dev/ytt/pkg/cmd/ui"
	"carvel.dev/ytt/pkg/template"
	"carvel.dev/ytt/pkg/template/core"
	"carvel.dev/ytt/pkg/yamlmeta"
	"carvel.dev/ytt/pkg/yamltemplate"
	"carvel.dev/ytt/pkg/yttlibrary"
	yttoverlay "carvel.dev/ytt/pkg/yttlibrary/overlay"
	"github.com/k14s/starlark-go/starlark"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/words"
)

// How is what the program learnt of a value.
type How int

const (
	// Content: a scalar's value (a string, a number, a bool, null).
	Content How = iota
	// Absent: a key looked up that the map does not hold.
	Absent
	// Keys: a map's keys or a list's length (iterated, counted, tested for emptiness).
	Keys
	// Whole: the value with all it holds (encoded, converted into the output, compared).
	Whole
)

// Read is one value the program read: of which source ("new", "existing", "_current", Left), where (map keys as
// strings, list indexes as ints), and what of it.
type Read struct {
	Source string
	Path   []any
	How    How
}

// Trace is what one evaluation read, in the order read, the paths its overlay documents set
// (Writes: map keys as strings, AnyItem for an array's item) and the object it returned.
type Trace struct {
	Reads  []Read
	Writes [][]any
	Out    map[string]any
}

// AnyItem stands for an array item in Writes: an overlay matches items by its own rules (by
// name, by index, all), not by a position.
const AnyItem = -1

// AnyBelow ends a path in Writes whose node the overlay replaces (overlay/replace): every value at
// and below the path before it may be written.
const AnyBelow = -2

// Eval evaluates overlay on the resource resYAML with the data values valuesYAML, the bytes kapp's
// yttresmod gives ytt (resource.yml, its sources written with sigs.k8s.io/yaml), recording what
// the program reads of the sources. Run it within the budgets kapp's evaluations get
// (kappglobal.TraceYTT): a program may loop or allocate without end.
func Eval(overlay string, resYAML, valuesYAML []byte) (Trace, error) {
	tr := &tracer{}
	vdocs, err := yamlmeta.NewDocumentSetFromBytes(valuesYAML, yamlmeta.DocSetOpts{AssociatedName: "values.yml"})
	if err != nil || len(vdocs.Items) != 1 {
		return Trace{}, fmt.Errorf("reading the sources as ytt does: %v", err)
	}
	real := core.NewGoValueWithOpts(vdocs.Items[0].AsInterface(), core.GoValueOpts{MapIsStruct: true}).AsStarlarkValue()
	root, ok := real.(*core.StarlarkStruct)
	if !ok {
		return Trace{}, fmt.Errorf("the sources are %s, not a map", words.A(real.Type()))
	}
	// data.values: its top-level keys are the sources, each traced from its own root
	top := starlark.StringDict{}
	for _, name := range root.AttrNames() {
		v, _ := root.Attr(name)
		top[name] = tr.wrap(name, nil, v)
	}
	traced := &sources{real: root, traced: top, t: tr}

	odocs, err := yamlmeta.NewDocumentSetFromBytes([]byte(overlay), yamlmeta.DocSetOpts{AssociatedName: "overlay.yml"})
	if err != nil {
		return Trace{}, err
	}
	compiled, err := yamltemplate.NewTemplate("overlay.yml", yamltemplate.TemplateOpts{}).Compile(odocs)
	if err != nil {
		return Trace{}, err
	}
	api := yttlibrary.NewAPI(compiled.TplReplaceNode, yttlibrary.NewDataModule(traced, noFiles{}), nil, ui.NewTTY(false))
	ld := loader{api: api, t: tr}
	thread := &starlark.Thread{Name: "template=overlay.yml", Load: ld.Load}
	_, result, err := compiled.Eval(thread, ld)
	if err != nil {
		return Trace{}, err
	}
	evaluated, ok := result.(*yamlmeta.DocumentSet)
	if !ok {
		return Trace{}, fmt.Errorf("overlay.yml evaluated to %T", result)
	}
	left, err := yamlmeta.NewDocumentSetFromBytes(resYAML, yamlmeta.DocSetOpts{AssociatedName: "resource.yml"})
	if err != nil {
		return Trace{}, err
	}
	lefts := []*yamlmeta.DocumentSet{left}
	resource := newLefts(left, tr)
	var trace Trace
	for _, doc := range evaluated.Items {
		if !template.NewAnnotations(doc).Has(yttoverlay.AnnotationMatch) {
			continue // kapp reads the first file ytt writes, resource.yml
		}
		resource.traceCalls(doc)
		out, err := yttoverlay.Op{Left: lefts, Right: &yamlmeta.DocumentSet{Items: []*yamlmeta.Document{doc}}, Thread: thread}.Apply()
		if err != nil {
			return Trace{}, err
		}
		lefts = out.([]*yamlmeta.DocumentSet)
		trace.Writes = append(trace.Writes, nodePaths(doc, nil)...)
	}
	trace.Reads = tr.reads
	if len(lefts) == 1 && len(lefts[0].Items) > 0 {
		bs, err := lefts[0].Items[0].AsYAMLBytes()
		if err != nil {
			return Trace{}, err
		}
		if err := yaml.Unmarshal(bs, &trace.Out); err != nil {
			return Trace{}, err
		}
	}
	return trace, nil
}

// nodePaths are the paths node (at at) and its values write: each node's, and AnyBelow where
// the overlay replaces one (its via function may write anything there).
func nodePaths(node template.EvaluationNode, at []any) [][]any {
	var out [][]any
	if template.NewAnnotations(node).Has(yttoverlay.AnnotationReplace) {
		out = append(out, child(at, AnyBelow))
	}
	var v any
	switch n := node.(type) {
	case *yamlmeta.Document:
		v = n.Value
	case *yamlmeta.MapItem:
		v = n.Value
	case *yamlmeta.ArrayItem:
		v = n.Value
	}
	switch v := v.(type) {
	case *yamlmeta.Map:
		for _, item := range v.Items {
			k, ok := item.Key.(string)
			if !ok {
				continue
			}
			p := child(at, k)
			out = append(out, p)
			out = append(out, nodePaths(item, p)...)
		}
	case *yamlmeta.Array:
		for _, item := range v.Items {
			p := child(at, AnyItem)
			out = append(out, p)
			out = append(out, nodePaths(item, p)...)
		}
	}
	return out
}

// loader loads ytt's own modules (@ytt:...): kapp's evaluation has no other file to load.
type loader struct {
	api yttlibrary.API
	t   *tracer
}

func (loader) FindCompiledTemplate(string) *template.CompiledTemplate { return nil }
func (l loader) Load(_ *starlark.Thread, module string) (starlark.StringDict, error) {
	if name, ok := strings.CutPrefix(module, "@ytt:"); ok {
		m, err := l.api.FindModule(name)
		if err == nil && name == "overlay" {
			m = overlayModule(m, l.t)
		}
		return m, err
	}
	return nil, fmt.Errorf("cannot load %q: kapp's ytt rebase rule evaluates overlay.yml alone", module)
}

// noFiles is data.list and data.read in kapp's evaluation: its only files are the templates.
type noFiles struct{}

func (noFiles) FilePaths(string) ([]string, error) { return nil, nil }
func (noFiles) FileData(p string) ([]byte, error) {
	return nil, fmt.Errorf("data.read(%q): no such file in kapp's ytt rebase rule evaluation", p)
}

// Numbered is t with the numbers of its paths as ints again, after a JSON round trip (the rule
// child's) made them float64.
func (t Trace) Numbered() Trace {
	fix := func(p []any) {
		for i, pe := range p {
			if f, ok := pe.(float64); ok {
				p[i] = int(f)
			}
		}
	}
	for _, r := range t.Reads {
		fix(r.Path)
	}
	for _, w := range t.Writes {
		fix(w)
	}
	return t
}
