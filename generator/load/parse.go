package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Bytes parses and decodes multi-document YAML (or JSON) named name (see ParseDocs).
func Bytes(name string, data []byte) ([]Object, error) {
	docs, err := ParseDocs(name, data)
	if err != nil {
		return nil, err
	}
	return Objects(docs)
}

// ParseDocs parses multi-document YAML (or JSON) named name. A document whose items is a list is
// expanded into its items, as kapp expands it (whatever its kind).
func ParseDocs(name string, data []byte) ([]Doc, error) {
	docs, _, err := parseDocs(name, data, MaxFileSize, nil)
	return docs, err
}

// parseDocs is ParseDocs, also returning the bytes of JSON the documents took: the file's
// size after alias expansion, at most limit. The Docs are compressed with dicts (nil: none).
func parseDocs(name string, data []byte, limit int64, dicts *dictionaries) ([]Doc, int64, error) {
	chunks, bad := splitDocs(data)
	var docs []Doc
	var used int64
	doc := 0
	line, counted := 1, 0 // line of data[counted]: counted incrementally, not from the start per document (quadratic in big files)
	lineOf := func(at int) int {
		line += bytes.Count(data[counted:at], newline)
		counted = at
		return line
	}
	content := func(c span) bool {
		return !blankLine(data[c.begin:c.body], true) || !onlyComments(data[c.body:c.end])
	}
	if bad >= 0 {
		// kapp (k8s.io/apimachinery's YAMLReader) refuses content after "---" before it reads
		// any document; YAML would read it as a document that the decoder, reading one
		// document, silently drops.
		for _, c := range chunks {
			if content(c) {
				doc++
			}
		}
		return nil, 0, &Error{Source: Source{File: name, Doc: doc + 1, Line: lineOf(bad)},
			Msg: "invalid document separator: only a comment may follow --- on its line (kapp refuses it too)"}
	}
	if last := bytes.LastIndexByte(data, '\n') + 1; kappDropsLastLine(data[last:]) {
		for _, c := range chunks {
			if content(c) && c.body < last {
				doc++
			}
		}
		return nil, 0, &Error{Source: Source{File: name, Doc: max(doc, 1), Line: lineOf(last)},
			Msg: fmt.Sprintf("the last line is %d bytes long with no newline after it: kapp (k8s.io/apimachinery's YAMLReader) drops such a line without a word; end the file with a newline", len(data)-last)}
	}
	for _, c := range chunks {
		if !content(c) {
			continue
		}
		doc++
		// the document's line is that of the separator before it (1 for the first)
		at := max(c.body-1, 0)
		lo := lineOf(min(c.begin, at))
		src := Source{File: name, Doc: doc, Line: lo + bytes.Count(data[min(c.begin, at):at], newline)}
		first := lo + bytes.Count(data[min(c.begin, at):c.begin], newline)
		chunk := data[c.begin:c.end]
		if !utf8.Valid(chunk) {
			return nil, 0, &Error{Source: src, Msg: "not UTF-8 text"}
		}
		// as kapp's reader reads lines: bufio.Reader.ReadLine drops the "\r" of "\r\n", and
		// apimachinery's LineReader ends every line with "\n" (a literal block scalar keeps it)
		if bytes.IndexByte(chunk, '\r') >= 0 {
			chunk = bytes.ReplaceAll(chunk, crlf, newline)
		}
		if chunk[len(chunk)-1] != '\n' {
			chunk = append(chunk[:len(chunk):len(chunk)], '\n')
		}
		parsed, size, err := parseDoc(chunk, src, first, limit-used, dicts)
		var e *Error
		if doc == 1 && errors.As(err, &e) {
			e.Msg += ownMessagesHint(data)
		}
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

// A span is one document of a file as kapp's reader returns it: data[begin:end]. body is where
// its content starts: after the separator line kapp's reader keeps as the document's first line
// when the separator opens the file or follows another separator (begin otherwise).
type span struct{ begin, body, end int }

// splitDocs splits data into documents exactly as kapp does (k8s.io/apimachinery's YAMLReader,
// read by kapp's resources.YAMLFile): a line starting with "---" followed by nothing but white
// space (unicode.IsSpace, so "---\r" too) or a comment separates documents; a line starting
// with "---" followed by anything else makes the whole file an error (bad: the offset of that
// line; -1 when there is none, and then chunks holds every document, empty ones left out).
// Line endings are kept: the caller reads "\r\n" as kapp's reader does.
//
// Performance: the lines are not visited one by one; only those starting with "---" are found
// (bytes.Index), which keeps the scan at memory speed at fleet scale.
func splitDocs(data []byte) (chunks []span, bad int) {
	begin, body := 0, 0
	for at := 0; ; {
		start := 0
		if at > 0 || !bytes.HasPrefix(data, dashes) {
			i := bytes.Index(data[at:], nlDashes)
			if i < 0 {
				break
			}
			start = at + i + 1
		}
		end := lineEnd(data, start)
		if rest := bytes.TrimLeftFunc(data[start+len(dashes):end], unicode.IsSpace); len(rest) > 0 && rest[0] != '#' {
			if start > begin {
				chunks = append(chunks, span{begin, body, start})
			}
			return chunks, start
		}
		next := min(end+1, len(data))
		if start > begin {
			chunks = append(chunks, span{begin, body, start})
			begin, body = next, next
		} else {
			body = next // kapp's reader keeps a separator opening the file or following another
		}
		at = end
	}
	if begin < len(data) {
		chunks = append(chunks, span{begin, body, len(data)})
	}
	return chunks, -1
}

// kappReadBuffer is the size of the bufio.Reader kapp's resources.YAMLFile reads a file with.
const kappReadBuffer = 4096

// kappDropsLastLine reports whether kapp's reader loses line, the file's last one when no
// newline ends it. bufio.Reader.ReadLine returns a line longer than the reader's buffer in
// pieces of the buffer's size (one byte less when the piece ends in "\r", which it puts back);
// when the last piece fills the buffer exactly, the call after it returns the end of the file,
// which apimachinery's LineReader returns together with the line, and its YAMLReader returns
// what it had before the line (a separator line excepted).
func kappDropsLastLine(line []byte) bool {
	if len(line) < kappReadBuffer || bytes.HasPrefix(line, dashes) {
		return false
	}
	for len(line) >= kappReadBuffer {
		n := kappReadBuffer
		if line[n-1] == '\r' {
			n--
		}
		line = line[n:]
	}
	return len(line) == 0
}

var (
	dashes   = []byte("---")
	nlDashes = []byte("\n---")
	newline  = []byte("\n")
	crlf     = []byte("\r\n")
)

// lineEnd returns the offset of the newline ending the line that starts at start, or len(b).
func lineEnd(b []byte, start int) int {
	if i := bytes.IndexByte(b[start:], '\n'); i >= 0 {
		return start + i
	}
	return len(b)
}

// onlyComments reports whether YAML reads b as nothing: every line blank or a comment.
func onlyComments(b []byte) bool {
	for start := 0; start < len(b); {
		end := lineEnd(b, start)
		if !blankLine(b[start:end], false) {
			return false
		}
		start = end + 1
	}
	return true
}

// blankLine reports whether YAML reads l, a line without its "\n", as nothing: spaces and tabs,
// then at most a comment, and a "\r" only at the end (elsewhere it ends a line: what follows it
// is read). With marker, l may also open with a document marker ("---" then a blank), which is
// how the separator kapp's reader keeps as a document's first line reads as nothing (when
// nothing blank follows "---", YAML reads it as text); an empty l is blank.
func blankLine(l []byte, marker bool) bool {
	if marker && bytes.HasPrefix(l, dashes) {
		if l = l[len(dashes):]; len(l) > 0 && l[0] != ' ' && l[0] != '\t' && l[0] != '\r' && l[0] != '\n' {
			return false
		}
	}
	l = bytes.TrimSuffix(bytes.TrimLeft(l, " \t"), newline)
	l = bytes.TrimSuffix(l, []byte("\r"))
	return len(l) == 0 || l[0] == '#' && bytes.IndexByte(l, '\r') < 0
}

// parseDoc parses one document, chunk, which starts at line first of its file (before src.Line
// when it opens with a separator line).
func parseDoc(chunk []byte, src Source, first int, budget int64, dicts *dictionaries) ([]Doc, int64, error) {
	js, err := toJSON(chunk, first, budget)
	if err != nil {
		return nil, 0, &Error{Source: src, Msg: err.Error()}
	}
	if line, after := dropped(chunk, first); line > 0 {
		return nil, 0, &Error{Source: src, Msg: droppedMsg(line, after)}
	}
	if docs, ok, err := headDoc(js, src, dicts); err != nil {
		return nil, 0, err
	} else if ok {
		return docs, int64(len(js)), nil
	}
	return fullDoc(js, src, dicts)
}

// fullDoc is parseDoc's reading of js, a document's JSON, decoded whole: any document.
func fullDoc(js []byte, src Source, dicts *dictionaries) ([]Doc, int64, error) {
	var v any
	if err := utiljson.Unmarshal(js, &v); err != nil {
		return nil, 0, &Error{Source: src, Msg: "invalid document: " + err.Error()}
	}
	if err := Nesting(v); err != nil {
		return nil, 0, &Error{Source: src, Msg: err.Error()}
	}
	if v == nil {
		return nil, int64(len(js)), nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, 0, &Error{Source: src, Msg: notAnObject(v)}
	}
	// kapp reads any document whose items is a list as the list of its items, whatever its kind,
	// and not the document itself (resources.NewResourcesFromBytes: apimachinery's
	// Unstructured.IsList); a Config carried in items is in force
	if items, isList := m["items"].([]any); isList {
		docs, err := listItems(js, items, src, dicts)
		return docs, int64(len(js)), err
	}
	if items := m["items"]; items != nil && strings.HasSuffix(str(m["kind"]), "List") {
		return nil, 0, &Error{Source: src, Field: "items", Msg: "expected a list"}
	}
	if err := checkObject(m, src, len(js)); err != nil {
		return nil, 0, err
	}
	return []Doc{newDoc(js, m, hasManagedFields(m), src, dicts)}, int64(len(js)), nil
}

// notAnObject says why a document that is no mapping is refused, in YAML's words.
func notAnObject(v any) string {
	switch v.(type) {
	case []any:
		// a YAML sequence of objects or a JSON array: kapp refuses it too
		return "not a Kubernetes object: the document is a list (a YAML sequence or JSON array), not a mapping: put the objects under items of a kind: List (apiVersion: v1, kind: List, items: [...]), or give each its own document, separated by ---"
	case string:
		return "not a Kubernetes object: the document is a string, not a mapping"
	case bool:
		return "not a Kubernetes object: the document is a boolean, not a mapping"
	default: // numbers, as JSON decodes them
		return "not a Kubernetes object: the document is a number, not a mapping"
	}
}

// listItems expands a list whose JSON is js: each item's Doc keeps exactly its own bytes.
func listItems(js []byte, list []any, src Source, dicts *dictionaries) ([]Doc, error) {
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
		docs = append(docs, newDoc(raw.Items[i], m, hasManagedFields(m), s, dicts))
	}
	return docs, nil
}

func checkObject(m map[string]any, src Source, size int) error {
	if size > MaxObjectSize {
		return errTooLarge(src)
	}
	for _, f := range []string{"apiVersion", "kind"} {
		if str(m[f]) == "" {
			return &Error{Source: src, Field: f, Msg: "missing: not a Kubernetes object"}
		}
	}
	if av, k := str(m["apiVersion"]), str(m["kind"]); av == kappconv.ConfigAPIVersion && k != kappconv.ConfigKind {
		// kapp reads every document of its Config's apiVersion as a Config and fails the deploy on
		// another kind (config/conf.go NewConfFromResources): a mistyped kind is no resource to skip
		return &Error{Source: src, Field: "kind", Msg: fmt.Sprintf("%q: kapp reads every %s document as a Config and refuses any other kind (want %s)", k, av, kappconv.ConfigKind)}
	}
	meta, _ := m["metadata"].(map[string]any)
	if labels, _ := meta["labels"].(map[string]any); labels != nil {
		if _, labelled := labels[kappconv.ConfigLabel]; labelled {
			// kapp parses the Config inside with its own YAML reader, which expands every alias
			data, _ := m["data"].(map[string]any)
			if doc, line := overExpanded([]byte(str(data[kappconv.ConfigKey])), MaxFileSize); doc > 0 {
				return &Error{Source: src, Field: "data." + kappconv.ConfigKey, Msg: fmt.Sprintf("its document %d (line %d of the text): %s", doc, line, errExpansion())}
			}
		}
	}
	if str(meta["name"]) == "" && !IsKappConfig(str(m["apiVersion"]), str(m["kind"])) { // kapp Configs need no name
		return &Error{Source: src, Field: "metadata.name", Msg: "missing"}
	}
	return nil
}

func errTooLarge(src Source) error {
	return &Error{Source: src, Msg: fmt.Sprintf("the object is larger than %d MiB as JSON: no API server stores it (etcd keeps at most 1.5 MiB per object, requests are at most 3 MiB)", MaxObjectSize>>20)}
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
