package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	yaml2 "go.yaml.in/yaml/v2"
)

// dropped finds content of chunk, one document as kapp's reader splits a file (at --- lines),
// that kapp never reads: sigs.k8s.io/yaml, which kapp decodes each document with, parses the
// first YAML document of its input and ignores whatever follows it. Two things follow a first
// document there: a second document after a document end marker (a "..." line: YAML ends a
// document there, apimachinery's YAMLReader does not split at it), and a second node after a
// first flow node, as in a JSON stream (objects one after another, as `jq -c` writes them or
// `kubectl get -o json` outputs concatenated). It returns the line in the file (chunk starts at
// line first) where the dropped content starts, and what precedes it; 0 when kapp reads chunk
// whole.
//
// Performance: chunk is parsed again only when it holds a "..." line at column 0 or starts with
// a flow, tagged, anchored or aliased node; a JSON object is first passed over with
// encoding/json, and parsed again as YAML only when anything but comments follows it.
func dropped(chunk []byte, first int) (line int, after string) {
	end := bytes.HasPrefix(chunk, docEnd) || bytes.Contains(chunk, nlDocEnd)
	at := significant(chunk)
	if at >= len(chunk) {
		return 0, ""
	}
	switch c := chunk[at]; {
	case end || bytes.ContainsAny(chunk, otherBreaks):
	case c == '{' || c == '[':
		dec := json.NewDecoder(bytes.NewReader(chunk[at:]))
		var raw json.RawMessage
		if dec.Decode(&raw) == nil && onlyComments(chunk[at+int(dec.InputOffset()):]) {
			return 0, ""
		}
	case c == '!' || c == '&' || c == '*':
	default:
		return 0, ""
	}
	// the parser kapp's sigs.k8s.io/yaml uses, asked for the rest of its input
	dec := yaml2.NewDecoder(bytes.NewReader(chunk))
	var v any
	if dec.Decode(&v) != nil {
		return 0, "" // toJSON reports it
	}
	var err error
	for {
		v = nil
		if err = dec.Decode(&v); err == io.EOF {
			return 0, ""
		} else if err != nil || v != nil {
			break
		}
		// an empty document (a lone carriage return, which YAML reads as a line break and kapp's
		// reader does not, can put a --- inside a document of kapp's) drops nothing
	}
	after = "the first object"
	if end {
		after = "the document end marker ..."
	}
	line = first
	if err != nil {
		// libyaml's parser counts lines from 0 in this error: "did not find expected <document start>"
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = first + n
		}
	}
	return line, after
}

// droppedMsg says why a document holding content kapp drops (dropped) is refused.
func droppedMsg(line int, after string) string {
	if after == "the document end marker ..." {
		return fmt.Sprintf("content at line %d follows a document end marker (...): kapp splits a file into documents at --- lines only and reads the first YAML document of each, so it would drop this one without a word; separate documents with ---", line)
	}
	return fmt.Sprintf("a second object starts at line %d after the first one ends (a JSON stream, as `jq -c` or concatenated `kubectl get -o json` write): kapp reads the first object of a document only and would drop the rest without a word; separate the objects with ---, or wrap them in a list (kind: List with items; jq -s '{apiVersion: \"v1\", kind: \"List\", items: .}')", line)
}

var (
	docEnd   = []byte("...")
	nlDocEnd = []byte("\n...")
	bom      = []byte("\uFEFF")
	// line breaks of YAML other than "\n" (parseDocs has made "\r\n" one): YAML starts a line,
	// and may read a --- or ... there, where kapp's reader does not
	otherBreaks = "\r\u0085\u2028\u2029"
)

// significant is the offset of chunk's first character YAML reads: past blank and comment lines,
// a separator line, and the white space opening the line.
func significant(chunk []byte) int {
	start := 0
	if bytes.HasPrefix(chunk, bom) {
		start = len(bom)
	}
	for firstLine := true; start < len(chunk); firstLine = false {
		end := lineEnd(chunk, start)
		if !blankLine(chunk[start:end], firstLine) {
			for start < end && (chunk[start] == ' ' || chunk[start] == '\t') {
				start++
			}
			return start
		}
		start = end + 1
	}
	return len(chunk)
}
