package lint

import (
	"gopkg.in/yaml.v3"

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

// Of returns the line in o's file of the entry index of the Config key (index < 0: the key), or
// of what sub names in that entry (a matcher: resourceMatchers, 1), o a kapp Config document or a
// ConfigMap labelled kapp.k14s.io/config whose config.yml is a literal block (key: |, its lines the
// file's); else the line of o's document. o must have been read from the file as written, not
// rendered.
func (l *Lines) Of(o load.Object, key string, index int, sub ...any) int {
	path := []any{key}
	if !load.IsKappConfig(o.GetAPIVersion(), o.GetKind()) {
		path = []any{"data", kappconv.ConfigKey, key}
	}
	if index >= 0 {
		path = append(path, index)
	}
	return l.At(o, append(path, sub...)...)
}

// At returns the line in o's file of what path names in o's document, each step a mapping key
// (string: the key's line) or a list index (int: the item's line); a string value written as a
// literal block (key: |) holding one YAML document is stepped into, its lines the file's (a
// labelled ConfigMap's config.yml, argocd-cm's resource.customizations). When the path is not
// found there, the line of o's document. o must have been read from the file as written, not
// rendered.
func (l *Lines) At(o load.Object, path ...any) int {
	if line, ok := l.Found(o, path...); ok {
		return line
	}
	return o.Source.Line
}

// Found is the line of what path names in o's document, as At finds it; false when the path is
// not found whole there.
func (l *Lines) Found(o load.Object, path ...any) (int, bool) {
	line, whole := l.walk(o, path)
	return line, whole && line > 0
}

// Nearest is At, except that for a path not found whole it returns the line of the longest
// prefix of path found (a field the file does not declare: its nearest parent it declares), the
// document's line only when none is.
func (l *Lines) Nearest(o load.Object, path ...any) int {
	if line, _ := l.walk(o, path); line > 0 {
		return line
	}
	return o.Source.Line
}

// walk returns the line of the longest prefix of path found in o's document (0: none) and
// whether that prefix is the whole path.
func (l *Lines) walk(o load.Object, path []any) (int, bool) {
	file := o.Source.File
	if _, ok := l.nodes[file]; !ok {
		var data []byte
		if l.r != nil {
			data, _ = l.r.ReadFile(file) // read by load already; positions are optional
		}
		l.nodes[file] = documentNodes(data)
	}
	n, offset, found := find(l.nodes[file], o.Source), 0, 0
	for _, step := range path {
		if n != nil && n.Kind == yaml.ScalarNode && n.Style&yaml.LiteralStyle != 0 {
			inner := documentNodes([]byte(n.Value))
			if len(inner) != 1 { // kapp reads exactly one Config there
				return found, false
			}
			n, offset = inner[0], offset+n.Line
		}
		if n == nil {
			return found, false
		}
		switch s := step.(type) {
		case string:
			a := at{n: n}.field(s)
			if a.key == nil {
				return found, false
			}
			n, found = a.n, a.key.Line+offset
		case int:
			if n.Kind != yaml.SequenceNode || s < 0 || s >= len(n.Content) {
				return found, false
			}
			n = deref(n.Content[s])
			found = n.Line + offset
		default:
			return found, false
		}
	}
	return found, true
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
