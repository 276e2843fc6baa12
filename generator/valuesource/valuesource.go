// Package valuesource says where, in a package's data values files, each pending change of its
// rendering was made: it renders the package again per candidate value (yttrender), after the
// verdict, for check's findings to point at the line a person edits.
package valuesource

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// maxValueProbes bounds the renders Sources makes besides its baseline: each may take as
// long as the package's own render.
const maxValueProbes = 16

// Sources says where, in the package's data values files, each pending change of its
// rendering was made (keyed by its index in pending): the line of the one data value that, changed alone, changes the rendered
// field. The candidates are the scalars of the values files whose text is the field's value; the
// package is rendered once with those files re-encoded unchanged (the baseline, which must still
// give the field its value) and once per candidate, changed to another value of its type. A field
// that no candidate changes (a value a template computes, one a --value flag overrides), that more
// than one does, or that a render cannot tell (an error, the object gone), is written nowhere.
// desired are the desired objects of the pairs, by identity.
func Sources(pkg yttrender.Package, rd *load.Reader, desired map[pair.Identity]load.Doc, pending []verdict.Residual) (map[int]load.Source, error) {
	if pkg.Empty() || len(pkg.ValuesFiles) == 0 || len(pending) == 0 {
		return nil, nil
	}
	type want struct {
		i       int // in pending
		r       verdict.Residual
		text    string
		before  any // the field in the baseline rendering
		feeders []*candidate
		unknown bool // a render could not tell
	}
	var wants []*want
	texts := map[string]bool{}
	for i, r := range pending {
		if t, ok := scalarText(r.Finding.Desired); ok {
			wants = append(wants, &want{i: i, r: r, text: t})
			texts[t] = true
		}
	}
	files, err := pkg.ReadValuesFiles(rd)
	if err != nil {
		return nil, err
	}
	var cands []*candidate
	docs := map[string][]*yaml.Node{} // the values files with candidates, parsed
	for _, f := range files {
		if f.Name == "-" {
			continue // written nowhere an annotation can point at
		}
		ds, ok := yamlDocs(f.Data)
		if !ok {
			continue // not re-encodable whole: ytt reads what yaml.v3 does not
		}
		before := len(cands)
		for _, d := range ds {
			valueScalars(d, func(n *yaml.Node) {
				if texts[n.Value] {
					cands = append(cands, &candidate{file: f.Name, node: n})
				}
			})
		}
		if len(cands) > before {
			docs[f.Name] = ds
		}
	}
	if len(cands) == 0 || len(cands) > maxValueProbes {
		return nil, nil
	}
	encoded := map[string][]byte{}
	for name, ds := range docs {
		if encoded[name], err = encodeDocs(ds); err != nil {
			return nil, nil
		}
	}
	baseline, err := pkg.RenderWithValues(rd, encoded)
	for _, w := range wants {
		orig, ok := fieldIn([]load.Doc{desired[w.r.Resource]}, w.r.Resource, w.r.Finding.Path)
		w.before, w.unknown = fieldOf(baseline, err, w.r.Resource, w.r.Finding.Path)
		w.unknown = w.unknown || !ok || !reflect.DeepEqual(orig, w.before)
	}
	for _, c := range cands {
		changed, ok := c.changed(docs[c.file])
		if !ok {
			for _, w := range wants {
				w.unknown = w.unknown || w.text == c.node.Value
			}
			continue
		}
		values := map[string][]byte{}
		for k, v := range encoded {
			values[k] = v
		}
		values[c.file] = changed
		probe, err := pkg.RenderWithValues(rd, values)
		for _, w := range wants {
			if w.unknown || w.text != c.node.Value {
				continue
			}
			after, unknown := fieldOf(probe, err, w.r.Resource, w.r.Finding.Path)
			switch {
			case unknown:
				w.unknown = true
			case !reflect.DeepEqual(after, w.before):
				w.feeders = append(w.feeders, c)
			}
		}
	}
	at := map[int]load.Source{}
	for _, w := range wants {
		if !w.unknown && len(w.feeders) == 1 && w.r.Finding.Class == classify.Pending {
			at[w.i] = load.Source{File: w.feeders[0].file, Line: w.feeders[0].node.Line}
		}
	}
	return at, nil
}

// candidate is a scalar of a values file that may feed a pending field.
type candidate struct {
	file string
	node *yaml.Node
}

// changed is the values file, its documents ds, re-encoded with the candidate's value changed to
// another of the same type; false for a type it cannot change.
func (c *candidate) changed(ds []*yaml.Node) ([]byte, bool) {
	n := c.node
	old := *n
	defer func() { *n = old }()
	switch n.ShortTag() {
	case "!!str":
		n.Value += "-changed"
		n.Style = yaml.DoubleQuotedStyle
	case "!!int":
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			return nil, false
		}
		n.Value, n.Style, n.Tag = strconv.FormatInt(i+1, 10), 0, "!!int"
	case "!!float":
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return nil, false
		}
		n.Value, n.Style, n.Tag = strconv.FormatFloat(f+0.5, 'g', -1, 64), 0, "!!float"
	case "!!bool":
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			return nil, false
		}
		n.Value, n.Style, n.Tag = strconv.FormatBool(!b), 0, "!!bool"
	default:
		return nil, false
	}
	data, err := encodeDocs(ds)
	return data, err == nil
}

// scalarText is a field's value as a values file writes it, for a scalar.
func scalarText(v any) (string, bool) {
	switch v.(type) {
	case string, bool, int64, float64, int:
		return fmt.Sprint(v), true
	}
	return "", false
}

// yamlDocs parses data's documents; false when yaml.v3 cannot read all of them.
func yamlDocs(data []byte) ([]*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var ds []*yaml.Node
	for {
		var d yaml.Node
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return ds, true
		}
		if err != nil {
			return nil, false
		}
		ds = append(ds, &d)
	}
}

func encodeDocs(ds []*yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, d := range ds {
		if err := enc.Encode(d); err != nil {
			return nil, err
		}
	}
	err := enc.Close()
	return b.Bytes(), err
}

// valueScalars calls f with each scalar of n that is a value, not a map key.
func valueScalars(n *yaml.Node, f func(*yaml.Node)) {
	if n.Kind == yaml.ScalarNode {
		f(n)
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue
		}
		valueScalars(c, f)
	}
}

// fieldOf is the field at p of the object id among a rendering's documents (err its error);
// unknown when the rendering failed or holds no such object, or not exactly one.
func fieldOf(docs []load.Doc, err error, id pair.Identity, p fielddiff.Path) (v any, unknown bool) {
	if err != nil {
		return nil, true
	}
	v, ok := fieldIn(docs, id, p)
	return v, !ok
}

// fieldIn is the field at p of the one document of docs that is the object id (a rendered
// document names no namespace when the install namespace is its); absent is nil.
func fieldIn(docs []load.Doc, id pair.Identity, p fielddiff.Path) (any, bool) {
	var found []load.Doc
	for _, d := range docs {
		if d.GroupKind().Group == id.Group && d.Kind == id.Kind && d.Name == id.Name && (d.Namespace == id.Namespace || d.Namespace == "") {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		return nil, false
	}
	o, err := found[0].Object()
	if err != nil {
		return nil, false
	}
	v, _ := p.GetDeclared(o.Object)
	return v, true
}
