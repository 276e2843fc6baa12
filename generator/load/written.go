package load

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"maps"
	"slices"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Written says where the templates a rendered document came from wrote each node of it: ytt keeps
// every node's position through evaluation, so that a finding on a field of a package names the
// template's line a person edits, as it names a manifest's (newcomer16 N16-4), rather than a line
// of ytt's output, which is no file's.
//
// Its nodes are those of a walk of the document's object: the document, then each map entry in the
// order of its key and each list item in order, depth first, each before what it holds.
// Performance: a line per node rather than a tree keyed by path: a package rendering a fleet holds
// as many nodes as its objects do, and documents are kept compressed (Doc).
type Written struct {
	Files []string // the files, by index (In)
	Lines []int32  // each node's line, 0 where its position is unknown
	In    []int32  // each node's file, an index in Files; nil: Files[0] for every node
	// Shape hashes the walk's keys and depths: the object walked when asked must be the one
	// written (a document rebuilt since holds other nodes).
	Shape uint64
}

// WrittenBuilder builds a Written from a walk of the document written, its nodes in Written's
// order (Node).
type WrittenBuilder struct {
	w     Written
	files map[string]int32
	shape hash.Hash64
}

// Node adds the walk's next node: at depth (the document's is 0), a map entry's key or, with
// item, a list item, written at file's line (file "": its position is unknown).
func (b *WrittenBuilder) Node(depth int, key string, item bool, file string, line int) {
	if b.shape == nil {
		b.shape, b.files = fnv.New64a(), map[string]int32{}
	}
	head := binary.AppendUvarint(nil, uint64(depth))
	if item {
		head = append(head, 1)
	} else {
		head = append(append(append(head, 0), key...), 0)
	}
	b.shape.Write(head)
	in := int32(0)
	if file == "" {
		line = 0
	} else if i, ok := b.files[file]; ok {
		in = i
	} else {
		in = int32(len(b.w.Files))
		b.files[file] = in
		b.w.Files = append(b.w.Files, file)
	}
	b.w.Lines, b.w.In = append(b.w.Lines, int32(line)), append(b.w.In, in)
}

// Written is what the walk gave.
func (b *WrittenBuilder) Written() *Written {
	w := b.w
	if b.shape != nil {
		w.Shape = b.shape.Sum64()
	}
	if !slices.ContainsFunc(w.In, func(i int32) bool { return i != 0 }) {
		w.In = nil
	}
	return &w
}

// WrittenAt is where the templates of d's document (Source.Written) wrote what path names in its
// object, each step a map key (string) or a list index (int) as fielddiff.Path.Steps gives them,
// or the nearest parent of it they wrote: a file and its line. False for a document not rendered
// from templates, an item of a List document, or a path on which no position is known.
func (d Doc) WrittenAt(path ...any) (Source, bool) {
	w := d.Source.Written
	if w == nil || d.Source.Item > 0 {
		return Source{}, false
	}
	js, err := d.decompress()
	var m map[string]any
	if err != nil || utiljson.Unmarshal(js, &m) != nil { // the object as written: no namespace set
		return Source{}, false
	}
	var on []int // the nodes on path, by their index in the walk
	if !w.Walk(m, func(i int, at []any, _ any) {
		if len(at) <= len(path) && slices.Equal(at, path[:len(at)]) {
			on = append(on, i)
		}
	}) {
		return Source{}, false
	}
	for _, i := range slices.Backward(on) {
		if at, ok := w.At(i); ok {
			return at, true
		}
	}
	return Source{}, false
}

// Walk calls f with each node of obj in w's order (Written): its index there, its path (map keys
// and list indexes; valid during the call only) and its value. False, f called for none, when obj
// is not the object whose walk w holds (its shape differs: a document rebuilt since), or w is nil.
func (w *Written) Walk(obj map[string]any, f func(i int, path []any, v any)) bool {
	if w == nil {
		return false
	}
	var b WrittenBuilder
	walk(obj, func(_ int, path []any, item bool, _ any) {
		key := ""
		if !item && len(path) > 0 {
			key, _ = path[len(path)-1].(string)
		}
		b.Node(len(path), key, item, "", 0)
	})
	if got := b.Written(); got.Shape != w.Shape || len(got.Lines) != len(w.Lines) {
		return false
	}
	walk(obj, func(i int, path []any, _ bool, v any) { f(i, path, v) })
	return true
}

// walk visits obj's nodes in Written's order: the document, then each map entry in the order of
// its key and each list item in order, depth first, each before what it holds.
func walk(obj map[string]any, f func(i int, path []any, item bool, v any)) {
	var path []any
	i := 0
	var visit func(item bool, v any)
	visit = func(item bool, v any) {
		f(i, path, item, v)
		i++
		switch n := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(n)) {
				path = append(path, k)
				visit(false, n[k])
				path = path[:len(path)-1]
			}
		case []any:
			for j, it := range n {
				path = append(path, j)
				visit(true, it)
				path = path[:len(path)-1]
			}
		}
	}
	visit(false, obj)
}

// At is where node i of the walk was written (its File and Line); false when unknown, or w nil.
func (w *Written) At(i int) (Source, bool) {
	if w == nil || i >= len(w.Lines) || w.Lines[i] == 0 {
		return Source{}, false
	}
	f := 0
	if w.In != nil {
		f = int(w.In[i])
	}
	return Source{File: w.Files[f], Line: int(w.Lines[i])}, true
}
