package yttrender

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"carvel.dev/ytt/pkg/filepos"
	"carvel.dev/ytt/pkg/files"
	"carvel.dev/ytt/pkg/yamlmeta"

	"github.com/rebasegen/rebasegen/generator/load"
)

// InlineDoc is a document an inline file yields rendered with the package (RenderInline): its
// Source.From is the inline file ytt positions it in (else, when an overlay replaced it whole, the
// overlay's file).
type InlineDoc struct {
	load.Doc
	// Overlays: for each top-level key of the document (K) and each item of a list there (K[i]),
	// the package's files holding ytt overlays that ytt positions a node of it in: the overlays that
	// rewrote it (a node an overlay removed leaves no trace).
	Overlays map[string][]string
}

// RenderInline renders the package with inline files in the same ytt run, as kapp-controller's ytt
// step renders the files of the Secrets a PackageInstall names with
// ext.packaging.carvel.dev/ytt-paths-from-secret-name: it writes them into the step's inline
// directory, given to ytt after the package's paths (pkg/template/ytt.go addInlinePaths), so they
// read the package's data values and schema, and the package's overlays rewrite their documents.
// It returns the documents of the inline files (the package's own are those Render gives: a run
// whose package documents differ from them is an error); source names them.
func (p Package) RenderInline(rd *load.Reader, source string, inline []Template) ([]InlineDoc, error) {
	in, err := p.read(rd)
	if err != nil {
		return nil, err
	}
	alone, err := p.runRead(in, documents, defaultLimits)
	if err != nil {
		return nil, err
	}
	with := p
	with.Inline, with.Source = inline, source
	r, err := with.runRead(in, documents, defaultLimits)
	if err != nil {
		return nil, err
	}
	// ytt outputs the documents of its files in their order, the inline directory's last
	n := len(alone.from)
	rest, ok := bytes.CutPrefix(r.yaml, alone.yaml)
	if ok && n > 0 && len(rest) > 0 {
		rest, ok = bytes.CutPrefix(rest, []byte("---\n"))
	}
	if !ok || len(r.from) < n {
		return nil, fmt.Errorf("rendering %s with ytt: the package's own documents are not the same rendered with %s's files (as kapp-controller's ytt step renders them) as without: not supported", p.label(), source)
	}
	from := r.from[n:]
	docs, err := rendering{name: source, yaml: rest, from: from}.docs()
	if err != nil {
		return nil, err
	}
	out := make([]InlineDoc, len(docs))
	for i, d := range docs {
		out[i].Doc = d
		if d.Source.Doc <= len(from) {
			out[i].Overlays = from[d.Source.Doc-1].Overlays
		}
	}
	return out, nil
}

// inlineFiles are p's Inline files as ytt reads kapp-controller's inline directory: sorted by
// name, the files of the Package's ytt step inline.paths, which kapp-controller writes into the
// same directory, before them.
func (p Package) inlineFiles(cr crTemplate) ([]*files.File, error) {
	if len(p.Inline) == 0 {
		return nil, nil
	}
	ts := slices.SortedFunc(slices.Values(p.Inline), func(a, b Template) int { return strings.Compare(a.Name, b.Name) })
	if in := cr.step.Inline; in != nil {
		for _, name := range slices.Sorted(maps.Keys(in.Paths)) {
			if path.Clean(name) >= ts[0].Name {
				// ytt would read them interleaved, or the Secret's file in place of the Package's
				return nil, fmt.Errorf("%s: spec.template.spec.template[0].ytt.inline.paths %q: kapp-controller writes it into the directory it writes %s's %s into, where ytt reads it after that file, or in its place: not supported", p.CR, name, p.Source, ts[0].Name)
			}
		}
	}
	out := make([]*files.File, len(ts))
	for i, t := range ts {
		if err := load.Aliases(t.Source, t.Data); err != nil {
			return nil, err
		}
		f, err := files.NewFileFromSource(files.NewBytesSource(t.Name, t.Data))
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// overlayFiles are the files of fs holding ytt overlays, named, by their path in ytt's run.
func (p Package) overlayFiles(fs []*files.File) map[string][]string {
	out := map[string][]string{}
	for _, f := range fs {
		data, err := f.Bytes()
		if err != nil || ChangesOtherFiles(f.RelativePath(), data) != "ytt overlays" {
			continue
		}
		name, local := strings.CutPrefix(f.Description(), "file ") // yttSource's
		if !local {
			name = p.CR + " " + f.RelativePath() // a file the Package fetches inline
		}
		out[f.RelativePath()] = append(out[f.RelativePath()], name)
	}
	return out
}

// overlaysOf are the package's overlay files ytt positions the nodes of doc in (InlineDoc.Overlays),
// overlays naming the files holding overlays by their path in ytt's run.
func overlaysOf(doc *yamlmeta.Document, overlays map[string][]string) map[string][]string {
	own := fileOf(doc.Position)
	m, ok := doc.Value.(*yamlmeta.Map)
	if !ok {
		return nil
	}
	var out map[string][]string
	add := func(key string, node any) {
		found := map[string]bool{}
		walkPositions(node, func(pos *filepos.Position) {
			if f := fileOf(pos); f != own {
				for _, name := range overlays[f] {
					found[name] = true
				}
			}
		})
		if len(found) > 0 {
			if out == nil {
				out = map[string][]string{}
			}
			out[key] = slices.Sorted(maps.Keys(found))
		}
	}
	for _, item := range m.Items {
		key := fmt.Sprint(item.Key)
		add(key, item)
		if a, ok := item.Value.(*yamlmeta.Array); ok {
			for i, ai := range a.Items {
				add(fmt.Sprintf("%s[%d]", key, i), ai)
			}
		}
	}
	return out
}

// fileOf is the file a position is in, "" when unknown.
func fileOf(pos *filepos.Position) string {
	if !pos.IsKnown() {
		return ""
	}
	return pos.GetFile()
}

// walkPositions calls f with the position of node and of every node under it.
func walkPositions(node any, f func(*filepos.Position)) {
	switch n := node.(type) {
	case *yamlmeta.MapItem:
		f(n.Position)
		walkPositions(n.Value, f)
	case *yamlmeta.ArrayItem:
		f(n.Position)
		walkPositions(n.Value, f)
	case *yamlmeta.Map:
		f(n.Position)
		for _, item := range n.Items {
			walkPositions(item, f)
		}
	case *yamlmeta.Array:
		f(n.Position)
		for _, item := range n.Items {
			walkPositions(item, f)
		}
	}
}
