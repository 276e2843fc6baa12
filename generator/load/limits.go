package load

import (
	"encoding/json"
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
	if !tooDeep(v, MaxDepth, nil, map[any]int{}) {
		return nil
	}
	// again, keys in order, recording the path, so that the field named is always the same
	var path []level
	tooDeep(v, MaxDepth, &path, map[any]int{})
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
// order and leaves on path the levels down to the first value too deep. done holds the maps and
// lists found not too deep, with the levels they had left: a value a library caller built may
// hold one map in many places (no cycle), and walking each of them again would take time
// exponential in its depth.
func tooDeep(v any, left int, path *[]level, done map[any]int) bool {
	if left < 0 {
		return true
	}
	var id any
	switch t := v.(type) {
	case map[string]any:
		id = reflect.ValueOf(t).Pointer()
	case []any:
		id = listID{reflect.ValueOf(t).Pointer(), len(t)}
	default:
		return false
	}
	if had, ok := done[id]; ok && had >= left {
		return false
	}
	switch t := v.(type) {
	case map[string]any:
		if path == nil {
			for _, x := range t {
				if tooDeep(x, left-1, nil, done) {
					return true
				}
			}
			break
		}
		*path = append(*path, level{id: id})
		for _, k := range slices.Sorted(maps.Keys(t)) {
			(*path)[len(*path)-1].step = k
			if tooDeep(t[k], left-1, path, done) {
				return true
			}
		}
		*path = (*path)[:len(*path)-1]
	case []any:
		if path != nil {
			*path = append(*path, level{id: id})
		}
		for i, x := range t {
			if path != nil {
				(*path)[len(*path)-1].step = "[" + strconv.Itoa(i) + "]"
			}
			if tooDeep(x, left-1, path, done) {
				return true
			}
		}
		if path != nil {
			*path = (*path)[:len(*path)-1]
		}
	}
	done[id] = left
	return false
}

// Check refuses an object a library caller built as the command line refuses a document it
// reads (checkObject: larger than MaxObjectSize as JSON, apiVersion, kind or metadata.name
// missing...), and one the Bounded check refuses, each error naming o.Source.
func Check(o Object) error {
	var m map[string]any
	if o.Unstructured != nil {
		m = o.Object
	}
	if err := Bounded(m, o.Source); err != nil {
		return err
	}
	js, err := json.Marshal(m)
	if err != nil {
		return &Error{Source: o.Source, Msg: "no JSON form: " + err.Error()}
	}
	return checkObject(m, o.Source, len(js))
}

// Bounded refuses a value nesting deeper than MaxDepth (Nesting) or larger than MaxObjectSize as
// JSON, counted before anything encodes or copies it and stopping past the limit: a value a
// library caller built may hold one map in many places, larger as JSON than in memory, and the
// count takes time bounded by the limit whatever the value. Errors name src.
func Bounded(v any, src Source) error {
	if err := Nesting(v); err != nil {
		return &Error{Source: src, Msg: err.Error()}
	}
	if jsonAtLeast(v, MaxObjectSize+1) > MaxObjectSize {
		return errTooLarge(src)
	}
	return nil
}

// jsonAtLeast is a lower bound of the length of v as JSON, counted up to limit at most.
func jsonAtLeast(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n >= limit {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			n += 2 // {}
			for k, x := range t {
				n += len(k) + 4 // "k":,
				walk(x)
				if n >= limit {
					return
				}
			}
		case []any:
			n += 2 // []
			for _, x := range t {
				n++ // ,
				walk(x)
				if n >= limit {
					return
				}
			}
		case string:
			n += len(t) + 2
		default:
			n++ // a number, true, false, null: one character at least
		}
	}
	walk(v)
	return min(n, limit)
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
