package lint

import (
	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Lines finds where the rules of Configs were written in the files they were read from, as lint's
// findings name them; each file is parsed once.
type Lines struct {
	r     *load.Reader
	nodes map[string][]*yaml.Node
}

// NewLines reads files with r (stdin and pipes: the data read before).
func NewLines(r *load.Reader) *Lines { return &Lines{r: r, nodes: map[string][]*yaml.Node{}} }

// Of returns the line in o's file of the entry index of the Config key (index < 0: the key), o a
// kapp Config document or a ConfigMap labelled kapp.k14s.io/config whose config.yml is a literal
// block (key: |, its lines the file's); else the line of o's document. o must have been read from
// the file as written, not rendered.
func (l *Lines) Of(o load.Object, key string, index int) int {
	file := o.Source.File
	if _, ok := l.nodes[file]; !ok {
		data, _ := l.r.ReadFile(file) // read by load already; positions are optional
		l.nodes[file] = documentNodes(data)
	}
	n, offset := find(l.nodes[file], o.Source), 0
	if n != nil && !load.IsKappConfig(o.GetAPIVersion(), o.GetKind()) {
		value := at{n: n}.field("data").field(kappconv.ConfigKey).n
		text, _, _ := unstructured.NestedString(o.Object, "data", kappconv.ConfigKey)
		n = nil
		if value != nil && value.Style&yaml.LiteralStyle != 0 {
			if inner := documentNodes([]byte(text)); len(inner) == 1 { // kapp reads exactly one Config there
				n, offset = inner[0], value.Line
			}
		}
	}
	entry := at{n: n}.field(key)
	if index >= 0 {
		if items := entry.n; items != nil && items.Kind == yaml.SequenceNode && index < len(items.Content) {
			return deref(items.Content[index]).Line + offset
		}
	} else if entry.key != nil {
		return entry.key.Line + offset
	}
	return o.Source.Line
}

// Key returns the line in o's file of the first of keys found in o's document (a rules Secret's
// stringData or data entry), else the document's line. o must have been read from the file as
// written, not rendered.
func (l *Lines) Key(o load.Object, keys ...[]string) int {
	file := o.Source.File
	if _, ok := l.nodes[file]; !ok {
		data, _ := l.r.ReadFile(file) // read by load already; positions are optional
		l.nodes[file] = documentNodes(data)
	}
	n := find(l.nodes[file], o.Source)
	for _, path := range keys {
		a := at{n: n}
		for _, k := range path {
			a = a.field(k)
		}
		if a.key != nil {
			return a.key.Line
		}
	}
	return o.Source.Line
}
