package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Bytes parses and decodes multi-document YAML (or JSON) named name (see ParseDocs).
func Bytes(name string, data []byte) ([]Object, error) {
	docs, err := ParseDocs(name, data)
	if err != nil {
		return nil, err
	}
	return Objects(docs)
}

// ParseDocs parses multi-document YAML (or JSON) named name. kind: List documents are expanded.
func ParseDocs(name string, data []byte) ([]Doc, error) {
	docs, _, err := parseDocs(name, data, MaxFileSize, nil)
	return docs, err
}

// parseDocs is ParseDocs, also returning the bytes of JSON the documents took: the file's
// size after alias expansion, at most limit. The Docs are compressed with dicts (nil: none).
func parseDocs(name string, data []byte, limit int64, dicts *dictionaries) ([]Doc, int64, error) {
	var docs []Doc
	var used int64
	starts := separators(data)
	begin, doc := 0, 0
	line, counted := 1, 0 // line of data[counted]: counted incrementally, not from the start per document (quadratic in big files)
	for i := 0; i <= len(starts); i++ {
		end := len(data)
		if i < len(starts) {
			end = starts[i][0]
		}
		chunk := data[begin:end]
		line += bytes.Count(data[counted:begin], []byte("\n"))
		counted = begin
		if i < len(starts) {
			begin = starts[i][1]
		}
		if sep := badSeparator(chunk); sep >= 0 {
			// kapp (k8s.io/apimachinery's YAMLReader) refuses content after "---"; YAML would
			// read it as a document that the decoder, reading one document, silently drops.
			at := line + bytes.Count(chunk[:sep], []byte("\n"))
			return nil, 0, &Error{Source: Source{File: name, Doc: doc + 2, Line: at},
				Msg: "invalid document separator: only a comment may follow --- on its line (kapp refuses it too)"}
		}
		if onlyComments(chunk) {
			continue
		}
		doc++
		src := Source{File: name, Doc: doc, Line: line}
		if !utf8.Valid(chunk) {
			return nil, 0, &Error{Source: src, Msg: "not UTF-8 text"}
		}
		parsed, size, err := parseDoc(chunk, src, limit-used, dicts)
		if err != nil {
			return nil, 0, err
		}
		if used += size; used > limit {
			return nil, 0, &Error{Source: src, Msg: fmt.Sprintf("the file is larger than %d MiB after alias expansion", limit>>20)}
		}
		docs = append(docs, parsed...)
	}
	return docs, used, nil
}

// The document separators are found line by line rather than with regular expressions
// (performance: the two regexps, (?m)^---[ \t]*(#.*)?$ for a separator and (?m)^---[ \t]*[^\s#]
// for content after one, were a tenth of explain's CPU at fleet scale; TestSeparatorsAsRegexps
// checks the functions against them).

// separators returns the [start, end) of each separator line of data: "---", then optionally
// spaces or tabs and a comment, up to the end of the line (not including its newline).
func separators(data []byte) [][2]int {
	var out [][2]int
	for start := 0; start < len(data); {
		end := lineEnd(data, start)
		if l := data[start:end]; bytes.HasPrefix(l, dashes) {
			if rest := bytes.TrimLeft(l[3:], " \t"); len(rest) == 0 || rest[0] == '#' {
				out = append(out, [2]int{start, end})
			}
		}
		start = end + 1
	}
	return out
}

// badSeparator returns the offset of the first line of chunk that starts with "---" followed,
// after spaces or tabs, by anything but white space or a comment; -1 when there is none.
func badSeparator(chunk []byte) int {
	for start := 0; start < len(chunk); {
		end := lineEnd(chunk, start)
		if l := chunk[start:end]; bytes.HasPrefix(l, dashes) {
			if rest := bytes.TrimLeft(l[3:], " \t"); len(rest) > 0 && strings.IndexByte("\f\r #", rest[0]) < 0 {
				return start
			}
		}
		start = end + 1
	}
	return -1
}

var dashes = []byte("---")

// lineEnd returns the offset of the newline ending the line that starts at start, or len(b).
func lineEnd(b []byte, start int) int {
	if i := bytes.IndexByte(b[start:], '\n'); i >= 0 {
		return start + i
	}
	return len(b)
}

// onlyComments reports whether every line of b is blank or a comment.
func onlyComments(b []byte) bool {
	for start := 0; start < len(b); {
		end := lineEnd(b, start)
		if t := bytes.TrimSpace(b[start:end]); len(t) > 0 && t[0] != '#' {
			return false
		}
		start = end + 1
	}
	return true
}

func parseDoc(chunk []byte, src Source, budget int64, dicts *dictionaries) ([]Doc, int64, error) {
	js, err := toJSON(chunk, src.Line, budget)
	if err != nil {
		return nil, 0, &Error{Source: src, Msg: err.Error()}
	}
	var v any
	if err := utiljson.Unmarshal(js, &v); err != nil {
		return nil, 0, &Error{Source: src, Msg: "invalid document: " + err.Error()}
	}
	if tooDeep(v, MaxDepth) {
		return nil, 0, &Error{Source: src, Msg: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}
	}
	if v == nil {
		return nil, int64(len(js)), nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, 0, &Error{Source: src, Msg: fmt.Sprintf("not a Kubernetes object: the document is a %T, not a mapping", v)}
	}
	if items, isList := m["items"]; isList && strings.HasSuffix(str(m["kind"]), "List") {
		docs, err := listItems(js, items, src, dicts)
		return docs, int64(len(js)), err
	}
	if err := checkObject(m, src, len(js)); err != nil {
		return nil, 0, err
	}
	return []Doc{newDoc(js, m, src, dicts)}, int64(len(js)), nil
}

// listItems expands a List whose JSON is js: each item's Doc keeps exactly its own bytes.
func listItems(js []byte, items any, src Source, dicts *dictionaries) ([]Doc, error) {
	list, ok := items.([]any)
	if !ok && items != nil {
		return nil, &Error{Source: src, Field: "items", Msg: "expected a list"}
	}
	var raw struct {
		Items []json.RawMessage `json:"items"`
	}
	if len(list) > 0 {
		// (a map, not the struct, would be needed to tell "items" from "Items"; the decoded list
		// was found under "items", and the lengths must agree)
		var top map[string]json.RawMessage
		if err := json.Unmarshal(js, &top); err != nil || json.Unmarshal(top["items"], &raw.Items) != nil || len(raw.Items) != len(list) {
			return nil, &Error{Source: src, Field: "items", Msg: "cannot split the list into items"}
		}
	}
	var docs []Doc
	for i, it := range list {
		s := src
		s.Item = i + 1
		m, ok := it.(map[string]any)
		if !ok {
			return nil, &Error{Source: s, Msg: "not a Kubernetes object: the item is not a mapping"}
		}
		if err := checkObject(m, s, len(raw.Items[i])); err != nil {
			return nil, err
		}
		docs = append(docs, newDoc(raw.Items[i], m, s, dicts))
	}
	return docs, nil
}

func checkObject(m map[string]any, src Source, size int) error {
	if size > MaxObjectSize {
		return &Error{Source: src, Msg: fmt.Sprintf("the object is larger than %d MiB as JSON: no API server stores it (etcd keeps at most 1.5 MiB per object, requests are at most 3 MiB)", MaxObjectSize>>20)}
	}
	for _, f := range []string{"apiVersion", "kind"} {
		if str(m[f]) == "" {
			return &Error{Source: src, Field: f, Msg: "missing: not a Kubernetes object"}
		}
	}
	meta, _ := m["metadata"].(map[string]any)
	if str(meta["name"]) == "" && !IsKappConfig(str(m["apiVersion"]), str(m["kind"])) { // kapp Configs need no name
		return &Error{Source: src, Field: "metadata.name", Msg: "missing"}
	}
	return nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// ToJSON converts a file holding one YAML document to JSON as Docs reads documents: within
// MaxFileSize after alias expansion, errors at the exact line, duplicate keys refused.
func ToJSON(name string, data []byte) ([]byte, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8 text", name)
	}
	js, err := toJSON(data, 1, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return js, nil
}
