package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"
)

// toJSON converts one YAML document to JSON as kapp reads it (sigs.k8s.io/yaml, whose decoder
// keeps the last of two equal keys), within budget bytes after alias expansion. The document
// starts at line first of its file; errors name the file's line.
//
// Hardening: the YAML decoder expands every alias, and its alias guard counts aliases, not
// bytes: one 1 MB scalar aliased 1,000 times took 3.2 GB to decode. A document with an anchor
// and an alias is first measured without expanding anything (yaml.v3 nodes, sizes memoised per
// anchor) and refused when it would exceed the budget.
//
// Duplicate keys: kapp and `kubectl apply -f` keep the last value silently; kustomize (`kubectl
// apply -k`) and the API server's strict field validation (kubectl's default since 1.27) refuse
// them. A duplicate key is an error naming both lines, as kustomize reports it: a reader of the
// file cannot tell which value was meant.
func toJSON(chunk []byte, first int, budget int64) ([]byte, error) {
	if bytes.IndexByte(chunk, '&') >= 0 && bytes.IndexByte(chunk, '*') >= 0 {
		var n yaml3.Node
		if err := yaml3.Unmarshal(chunk, &n); err == nil {
			if size := expandedSize(&n, budget, map[*yaml3.Node]int64{}); size > budget {
				return nil, errExpansion()
			}
		}
	}
	js, err := yaml.YAMLToJSONStrict(chunk)
	if err == nil {
		// strict decoding compares keys as written: `on` and "true" pass, one key for kapp
		if yaml11Key.Match(chunk) {
			if dup := duplicateKey(chunk, first); dup != "" {
				return nil, fmt.Errorf("%s", dup)
			}
		}
		return js, nil
	}
	if dup := duplicateKey(chunk, first); dup != "" {
		return nil, fmt.Errorf("%s", dup)
	}
	if lenient, lerr := yaml.YAMLToJSON(chunk); lerr == nil {
		// strict decoding also refuses a key that overrides one a merge key (<<) brought in
		return lenient, nil
	}
	return nil, fmt.Errorf("invalid YAML: %s", atLine(chunk, first, err))
}

// Aliases refuses YAML that another parser reads (ytt's, for templates, data values and a rules
// Secret's files; kapp's, for a ConfigMap's config.yml) when its aliases would expand it beyond
// MaxFileSize, as a file read here is refused: those parsers expand every alias, unbounded. Each
// document is measured as toJSON measures it, without expanding anything; the error names the
// document and its line. YAML yaml.v3 cannot parse is left to the parser that reads it.
func Aliases(name string, data []byte) error {
	if doc, line := overExpanded(data, MaxFileSize); doc > 0 {
		return &Error{Source: Source{File: name, Doc: doc, Line: line}, Msg: errExpansion().Error()}
	}
	return nil
}

// WithoutAliases is data with every alias (*name) replaced by an empty flow mapping padded to
// its length, so that a parser that expands aliases (ytt's) reads it in time and memory bounded
// by its size, with its comments, lines and columns unchanged; the anchors stay, unused. An empty
// mapping, so that a merge key (<<: *base) still merges a mapping. ok is false when yaml.v3
// cannot parse data or does not place an alias where data holds it (text it reads otherwise than
// a YAML 1.1 parser may): then nothing is known of what an alias expands to.
//
// Hardening: Aliases bounds the bytes an expansion makes, and ytt's parser builds a node of
// several hundred bytes per expanded value: a 500-byte file within the bound made 10^7 nodes,
// 4.4 GB and minutes of parsing.
func WithoutAliases(data []byte) (out []byte, ok bool) {
	if bytes.IndexByte(data, '&') < 0 || bytes.IndexByte(data, '*') < 0 {
		return data, true // no anchor, or nothing refers to one
	}
	lines := lineStarts(data)
	dec := yaml3.NewDecoder(bytes.NewReader(data))
	out = bytes.Clone(data)
	for {
		var n yaml3.Node
		if err := dec.Decode(&n); err == io.EOF {
			return out, true
		} else if err != nil {
			return nil, false
		}
		if !replaceAliases(&n, data, out, lines) {
			return nil, false
		}
	}
}

// replaceAliases replaces in out (a copy of data) every alias under n, each found by its line
// and column (characters, as yaml.v3 counts them).
func replaceAliases(n *yaml3.Node, data, out []byte, lines []int) bool {
	if n.Kind == yaml3.AliasNode {
		if n.Line < 1 || n.Line > len(lines) || n.Column < 1 {
			return false
		}
		at := lines[n.Line-1]
		for c := 1; c < n.Column && at < len(data); c++ { // to the alias's column
			_, w := utf8.DecodeRune(data[at:])
			at += w
		}
		token := "*" + n.Value
		if !bytes.HasPrefix(data[at:], []byte(token)) {
			return false
		}
		copy(out[at:], "{}"+strings.Repeat(" ", len(token)-2))
		return true
	}
	for _, c := range n.Content {
		if !replaceAliases(c, data, out, lines) {
			return false
		}
	}
	return true
}

// lineStarts are the offsets at which data's lines start, its line breaks as YAML's: LF, CR LF,
// CR, and U+0085, U+2028, U+2029.
func lineStarts(data []byte) []int {
	starts := []int{0}
	if bytes.HasPrefix(data, []byte("\uFEFF")) { // a byte order mark, which yaml.v3 skips
		starts[0] = 3
	}
	for i := starts[0]; i < len(data); {
		r, w := utf8.DecodeRune(data[i:])
		switch {
		case r == '\r' && i+1 < len(data) && data[i+1] == '\n':
			w = 2
			fallthrough
		case r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029:
			starts = append(starts, i+w)
		}
		i += w
	}
	return starts
}

// overExpanded is the document of data (counted from 1) and its line where its aliases expand
// data beyond limit bytes; 0 when they do not.
func overExpanded(data []byte, limit int64) (doc, line int) {
	if bytes.IndexByte(data, '&') < 0 || bytes.IndexByte(data, '*') < 0 {
		return 0, 0
	}
	dec := yaml3.NewDecoder(bytes.NewReader(data))
	var used int64
	for doc := 1; ; doc++ {
		var n yaml3.Node
		if dec.Decode(&n) != nil {
			return 0, 0 // the end, or YAML the other parser reports
		}
		if used += expandedSize(&n, limit-used, map[*yaml3.Node]int64{}); used > limit {
			if len(n.Content) > 0 {
				return doc, n.Content[0].Line
			}
			return doc, n.Line
		}
	}
}

func errExpansion() error {
	return fmt.Errorf("aliases expand the document beyond the size limit (a file may take %d MiB after alias expansion, all inputs %d MiB)", MaxFileSize>>20, MaxTotalSize>>20)
}

// expandedSize is about the bytes of n's JSON with every alias expanded, counted without
// expanding anything; it stops counting past limit.
func expandedSize(n *yaml3.Node, limit int64, memo map[*yaml3.Node]int64) int64 {
	if s, ok := memo[n]; ok {
		return s
	}
	memo[n] = limit + 1 // an alias cycle counts as too large
	var size int64
	switch n.Kind {
	case yaml3.AliasNode:
		size = expandedSize(n.Alias, limit, memo)
	case yaml3.ScalarNode:
		size = int64(len(n.Value)) + 3
	default:
		size = 2
		for _, c := range n.Content {
			if size += expandedSize(c, limit, memo) + 1; size > limit {
				size = limit + 1
				break
			}
		}
	}
	memo[n] = size
	return size
}

// duplicateKey finds the first mapping key defined twice in one mapping and names both lines
// (in the file), or returns "".
func duplicateKey(chunk []byte, first int) string {
	var doc yaml3.Node
	if yaml3.Unmarshal(chunk, &doc) != nil {
		return ""
	}
	var walk func(n *yaml3.Node, path string) string
	walk = func(n *yaml3.Node, path string) string {
		switch n.Kind {
		case yaml3.DocumentNode, yaml3.SequenceNode:
			for i, c := range n.Content {
				p := path
				if n.Kind == yaml3.SequenceNode {
					p = fmt.Sprintf("%s[%d]", path, i)
				}
				if d := walk(c, p); d != "" {
					return d
				}
			}
		case yaml3.MappingNode:
			seen := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml3.ScalarNode || k.Value == "<<" {
					continue
				}
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				key := keyAsKappReads(k)
				if line, ok := seen[key]; ok {
					as := ""
					if key != k.Value {
						as = fmt.Sprintf(", which kapp reads as %q", key)
					}
					return fmt.Sprintf("field %s: duplicate key %q at line %d%s, first defined at line %d", p, k.Value, k.Line+first-1, as, line+first-1)
				}
				seen[key] = k.Line
				if d := walk(n.Content[i+1], p); d != "" {
					return d
				}
			}
		}
		return ""
	}
	return walk(&doc, "")
}

// yaml11Plain matches a plain scalar that YAML 1.1, which kapp's reader (sigs.k8s.io/yaml)
// follows, may resolve to something other than its text: a number, a bool (on, yes, y...), null.
var yaml11Plain = regexp.MustCompile(`\A(?:[-+.~0-9].*|(?i:y|yes|n|no|on|off|true|false|null))\z`)

// yaml11Key finds a line (or flow mapping entry) whose key yaml11Plain may match: only YAML
// holding one is walked for keys equal as kapp reads them.
var yaml11Key = regexp.MustCompile(`(?m)(?:^|[{,])[ \t-]*(?:[-+.~0-9][^:\n,{}]*|(?i:y|yes|n|no|on|off|true|false|null))[ \t]*:(?:[ \t]|$)`)

// keyAsKappReads is the JSON key kapp's reader makes of mapping key k: `on` and "true" are one
// key there (both "true"), and it keeps the last of them silently (probe16 P16-6). A key that
// may resolve so is resolved by that reader itself.
func keyAsKappReads(k *yaml3.Node) string {
	if k.Style&(yaml3.DoubleQuotedStyle|yaml3.SingleQuotedStyle|yaml3.LiteralStyle|yaml3.FoldedStyle) != 0 || !yaml11Plain.MatchString(k.Value) {
		return k.Value
	}
	js, err := yaml.YAMLToJSON([]byte(k.Value + ": 0\n"))
	var m map[string]any
	if err != nil || json.Unmarshal(js, &m) != nil || len(m) != 1 {
		return k.Value
	}
	for key := range m {
		return key
	}
	return k.Value
}

var (
	yamlLine = regexp.MustCompile(`line (\d+)`)
	// unclosed: errors about a construct never closed, best located where it opens
	unclosed = regexp.MustCompile(`found unexpected end of stream|did not find expected ',' or`)
	// parserError: libyaml's parser (not scanner) errors, whose reported line is 0-based
	parserError = regexp.MustCompile(`did not find expected ('-' indicator|<document start>|<stream-start>|key|node content)|found (duplicate %|incompatible YAML|undefined tag)`)
)

// atLine rewrites the YAML error of chunk to name the exact line in the file. libyaml knows two
// places: where the construct at fault opens (context) and the token it choked on (problem).
// sigs.k8s.io/yaml's decoder (yaml.v2) reports the problem, yaml.v3 the context, each 0-based for
// parser errors and 1-based for scanner errors, so both were one or two lines off. An unclosed
// quote or bracket is located where it opens (yaml.v3's line), anything else at the token.
func atLine(chunk []byte, first int, err error) string {
	msg := err.Error()
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	exact, _ := strconv.Atoi(m[1])
	switch {
	case unclosed.MatchString(msg):
		var node yaml3.Node
		if err3 := yaml3.Unmarshal(chunk, &node); err3 != nil {
			if m3 := yamlLine.FindStringSubmatch(err3.Error()); m3 != nil {
				exact, _ = strconv.Atoi(m3[1])
				if !strings.Contains(msg, "end of stream") { // a parser error
					exact++
				}
			}
		}
	case parserError.MatchString(msg):
		exact++
	}
	return strings.Replace(msg, m[0], fmt.Sprintf("line %d", exact+first-1), 1)
}
