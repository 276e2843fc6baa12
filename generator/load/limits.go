package load

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// MaxFileSize bounds one input file; larger inputs are rejected before parsing.
const MaxFileSize int64 = 64 << 20

// MaxTotalSize bounds all inputs of a run together: their file sizes (TotalSize) and, per
// flag, the documents after alias expansion (Docs). Measured: 10,000 pairs are 38.9 MB of YAML
// and peak at 291 MB of heap, so 256 MiB of input stays within a few GB.
const MaxTotalSize int64 = 256 << 20

// MaxObjectSize bounds one Kubernetes object, as JSON. No cluster holds a larger one: etcd keeps
// at most 1.5 MiB per object and the API server takes requests of at most 3 MiB; the margin is
// for JSON of objects stored as protobuf. Hardening: rebasegen's work grows with an object's
// values, and explain of a ConfigMap of 1,000,000 keys (13 MB of YAML) took 93 s and 2 GB.
const MaxObjectSize = 4 << 20

// MaxDepth bounds how deeply maps and lists nest in one document. Hardening: the YAML and JSON
// parsers stop at 10,000 levels, but every later stage walks objects recursively (9,000 levels
// took seconds); no Kubernetes object comes near this.
const MaxDepth = 512

// Nesting refuses a value whose maps and lists nest deeper than MaxDepth, in the words the
// command line uses for a document. A map or list that holds itself (a Go value a library caller
// built can; a parsed document cannot) nests without end: the error then names the field where it
// holds itself, found as encoding/json finds cycles, by identity along the path walked.
func Nesting(v any) error {
	if !tooDeep(v, MaxDepth, nil) {
		return nil
	}
	// again, keys in order, recording the path, so that the field named is always the same
	var path []level
	tooDeep(v, MaxDepth, &path)
	seen := map[any]int{}
	for i, l := range path {
		if j, ok := seen[l.id]; ok {
			kind := "map"
			if _, list := l.id.(listID); list {
				kind = "list"
			}
			return fmt.Errorf("field %s is the same %s as %s: a value holding itself has no JSON form", pathString(path[:i]), kind, pathString(path[:j]))
		}
		seen[l.id] = i
	}
	return fmt.Errorf("nested deeper than %d levels", MaxDepth)
}

// level is a map or list on the path Nesting walks, and the key or index walked into from it.
type level struct {
	id   any // as encoding/json identifies one: a map's pointer, a list's array and length
	step string
}

// pathString names the field the steps of path lead to.
func pathString(path []level) string {
	if len(path) == 0 {
		return "the object"
	}
	var b strings.Builder
	for _, l := range path {
		if _, list := l.id.(listID); !list && b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(l.step)
	}
	return b.String()
}

type listID struct {
	array uintptr
	len   int
}

// tooDeep says whether v nests deeper than left levels. With path given it walks map keys in
// order and leaves on path the levels down to the first value too deep.
func tooDeep(v any, left int, path *[]level) bool {
	if left < 0 {
		return true
	}
	switch t := v.(type) {
	case map[string]any:
		if path == nil {
			for _, x := range t {
				if tooDeep(x, left-1, nil) {
					return true
				}
			}
			return false
		}
		*path = append(*path, level{id: reflect.ValueOf(t).Pointer()})
		for _, k := range slices.Sorted(maps.Keys(t)) {
			(*path)[len(*path)-1].step = k
			if tooDeep(t[k], left-1, path) {
				return true
			}
		}
		*path = (*path)[:len(*path)-1]
	case []any:
		if path != nil {
			*path = append(*path, level{id: listID{reflect.ValueOf(t).Pointer(), len(t)}})
		}
		for i, x := range t {
			if path != nil {
				(*path)[len(*path)-1].step = "[" + strconv.Itoa(i) + "]"
			}
			if tooDeep(x, left-1, path) {
				return true
			}
		}
		if path != nil {
			*path = (*path)[:len(*path)-1]
		}
	}
	return false
}

// TotalSize refuses inputs (files and directories, as Docs reads them; "-" is bounded by
// MaxFileSize when read) whose sizes add up to more than MaxTotalSize, before any is read.
func TotalSize(paths ...string) error { return totalSize(MaxTotalSize, paths) }

func totalSize(limit int64, paths []string) error {
	var total int64
	for _, p := range paths {
		if p == "-" {
			continue
		}
		names, err := expand(p)
		if err != nil {
			continue // reading reports it, in order
		}
		for _, n := range names {
			if st, err := os.Stat(n); err == nil && st.Mode().IsRegular() {
				total += st.Size()
			}
		}
		if total > limit {
			return fmt.Errorf("reading %s: the inputs are larger than %d MiB in all", p, limit>>20)
		}
	}
	return nil
}
