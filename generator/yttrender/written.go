package yttrender

import (
	"cmp"
	"slices"

	"carvel.dev/ytt/pkg/filepos"
	"carvel.dev/ytt/pkg/orderedmap"
	"carvel.dev/ytt/pkg/yamlmeta"

	"github.com/rebasegen/rebasegen/generator/load"
)

// nodesWritten is where the package's files wrote each node of doc (load.Written), file naming the file
// a position is in ("": none of the package's). A value a template computed (a map or list
// from Starlark) has no positions of its own: its nodes are the expression's. nil for a document
// with a key that is not a string: its JSON, whose walk load.Written follows, names it otherwise.
func nodesWritten(doc *yamlmeta.Document, file func(*filepos.Position) string) *load.Written {
	var b load.WrittenBuilder
	keyed := true
	var node func(depth int, key string, item bool, pos *filepos.Position, v any)
	node = func(depth int, key string, item bool, pos *filepos.Position, v any) {
		f, line := file(pos), 0
		if f != "" {
			line = pos.LineNum()
		}
		b.Node(depth, key, item, f, line)
		type entry struct {
			key string
			pos *filepos.Position
			v   any
		}
		var entries []entry // a map's, sorted by key as the walk takes them
		switch n := v.(type) {
		case *yamlmeta.Map:
			for _, it := range n.Items {
				k, ok := it.Key.(string)
				keyed = keyed && ok
				entries = append(entries, entry{k, it.Position, it.Value})
			}
		case *orderedmap.Map:
			n.Iterate(func(k, v any) {
				s, ok := k.(string)
				keyed = keyed && ok
				entries = append(entries, entry{s, pos, v})
			})
		case *yamlmeta.Array:
			for _, it := range n.Items {
				node(depth+1, "", true, it.Position, it.Value)
			}
		case []any:
			for _, it := range n {
				node(depth+1, "", true, pos, it)
			}
		}
		slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
		for _, e := range entries {
			node(depth+1, e.key, false, e.pos, e.v)
		}
	}
	node(0, "", false, doc.Position, doc.Value)
	if !keyed {
		return nil
	}
	return b.Written()
}
