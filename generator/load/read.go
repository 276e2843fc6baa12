package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/rebasegen/rebasegen/internal/parallel"
)

// MaxFileSize bounds one input file; larger inputs are rejected before parsing.
const MaxFileSize int64 = 64 << 20

// MaxTotalSize bounds all inputs of a run together: their file sizes (TotalSize) and, per
// flag, the documents after alias expansion (Docs). Measured: 10,000 pairs are 38.9 MB of YAML
// and peak at 291 MB of heap, so 256 MiB of input stays within a few GB.
const MaxTotalSize int64 = 256 << 20

// MaxDepth bounds how deeply maps and lists nest in one document. Hardening: the YAML and JSON
// parsers stop at 10,000 levels, but every later stage walks objects recursively (9,000 levels
// took seconds); no Kubernetes object comes near this.
const MaxDepth = 512

func tooDeep(v any, left int) bool {
	if left < 0 {
		return true
	}
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			if tooDeep(x, left-1) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if tooDeep(x, left-1) {
				return true
			}
		}
	}
	return false
}

// Paths reads and decodes every object from the given paths (see Docs): for small inputs.
func Paths(paths []string, stdin io.Reader) ([]Object, error) {
	docs, err := Docs(paths, stdin)
	if err != nil {
		return nil, err
	}
	return Objects(docs)
}

// Docs reads every object from the given paths: files, directories (all *.yml/*.yaml inside,
// recursively, in sorted order) or "-" for stdin.
//
// Files are read and parsed on every core (performance: loading was the largest serial part of
// explain at fleet scale); the objects and the error returned are those of reading the files one
// by one in order: objects in file order, else the first failing path's or file's error.
func Docs(paths []string, stdin io.Reader) ([]Doc, error) {
	return docs(paths, stdin, limits{MaxFileSize, MaxTotalSize}, "")
}

// Inputs reads the objects an input flag (--desired, --live) names, as Docs does, except that
// files rebasegen generated (IsGenerated) are left out: they are its output, never its input
// (read as the package's rules, a previous run's output made the next run flip-flop). A path
// that holds no object is an error naming the flag: an empty file, stdin or directory, one of
// comments only, null or bare separators would otherwise be read as "nothing desired".
func Inputs(flag string, paths []string, stdin io.Reader) ([]Doc, error) {
	return docs(paths, stdin, limits{MaxFileSize, MaxTotalSize}, flag)
}

// limits are the sizes a read allows after alias expansion: MaxFileSize per file and
// MaxTotalSize for all files together (tests lower them).
type limits struct{ file, total int64 }

// docs reads paths; with flag set, as Inputs for that flag.
func docs(paths []string, stdin io.Reader, lim limits, flag string) ([]Doc, error) {
	type file struct {
		path  int // index in paths
		name  string
		stdin bool
		data  []byte
		docs  []Doc
		err   error
	}
	var files []*file
	for pi, p := range paths {
		names, err := expand(p)
		if err != nil {
			files = append(files, &file{err: err})
			break // nothing after it would have been read
		}
		for _, n := range names {
			f := &file{path: pi, name: n}
			if n == "-" { // stdin is read here, in order: "-" twice gets the data once, as before
				f.stdin = true
				f.data, f.err = readFile(n, stdin)
			}
			files = append(files, f)
		}
	}
	var total atomic.Int64
	parallel.Each(len(files), func() func(int) {
		return func(i int) {
			f := files[i]
			if f.err != nil {
				return
			}
			if !f.stdin {
				if f.data, f.err = readFile(f.name, stdin); f.err != nil {
					return
				}
			}
			if flag != "" && IsGenerated(f.data) {
				f.data = nil
				return
			}
			var size int64
			f.docs, size, f.err = parseDocs(f.name, f.data, lim.file)
			f.data = nil
			if f.err == nil && total.Add(size) > lim.total {
				f.err = fmt.Errorf("reading %s: the inputs are larger than %d MiB in all after alias expansion", f.name, lim.total>>20)
			}
		}
	})
	var all []Doc
	objects := make([]int, len(paths))
	for _, f := range files {
		if f.err != nil {
			return nil, f.err
		}
		all = append(all, f.docs...)
		objects[f.path] += len(f.docs)
	}
	for i, n := range objects {
		if flag != "" && n == 0 {
			what := paths[i]
			if what == "-" {
				what = "- (stdin)"
			}
			return nil, fmt.Errorf("%s %s: no Kubernetes object in it (empty, only comments, null or separators, or only files rebasegen generated)", flag, what)
		}
	}
	return all, nil
}

// Files are the files Docs reads for one path: the file itself, or a directory's *.yml/*.yaml.
func Files(p string) ([]string, error) { return expand(p) }

func expand(p string) ([]string, error) {
	if p == "-" {
		return []string{p}, nil
	}
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	// WalkDir does not follow symlinked directories, so a symlink loop cannot recurse forever;
	// symlinked files are followed by readFile.
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		ext := filepath.Ext(path)
		if !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			if d.Type()&fs.ModeSymlink != 0 {
				if st, err := os.Stat(path); err != nil || st.IsDir() {
					return nil
				}
			}
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	if err == nil && len(files) == 0 {
		// Hardening: an empty directory (or one holding only symlink loops) is a mistake, and as
		// --desired it would silently switch to recovering desired objects from live ones.
		return nil, fmt.Errorf("reading %s: no *.yaml or *.yml file in the directory (symlinked directories are not followed)", p)
	}
	return files, err
}

func readFile(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		defer f.Close()
		// Hardening: reject a regular file that is too large before reading any of it (reading
		// up to the limit first cost MaxFileSize of memory per rejected input).
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileSize {
			return nil, fmt.Errorf("reading %s: larger than %d MiB", name, MaxFileSize>>20)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > MaxFileSize {
		return nil, fmt.Errorf("reading %s: larger than %d MiB", name, MaxFileSize>>20)
	}
	return data, nil
}

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

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
	docs, _, err := parseDocs(name, data, MaxFileSize)
	return docs, err
}

// parseDocs is ParseDocs, also returning the bytes of JSON the documents took: the file's
// size after alias expansion, at most limit.
func parseDocs(name string, data []byte, limit int64) ([]Doc, int64, error) {
	var docs []Doc
	var used int64
	starts := docSeparator.FindAllIndex(data, -1)
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
		if sep := badSeparator.FindIndex(chunk); sep != nil {
			// kapp (k8s.io/apimachinery's YAMLReader) refuses content after "---"; YAML would
			// read it as a document that the decoder, reading one document, silently drops.
			at := line + bytes.Count(chunk[:sep[0]], []byte("\n"))
			return nil, 0, &Error{Source: Source{File: name, Doc: doc + 2, Line: at},
				Msg: "invalid document separator: only a comment may follow --- on its line (kapp refuses it too)"}
		}
		if len(bytes.TrimSpace(stripComments(chunk))) == 0 {
			continue
		}
		doc++
		src := Source{File: name, Doc: doc, Line: line}
		if !utf8.Valid(chunk) {
			return nil, 0, &Error{Source: src, Msg: "not UTF-8 text"}
		}
		parsed, size, err := parseDoc(chunk, src, limit-used)
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

var badSeparator = regexp.MustCompile(`(?m)^---[ \t]*[^\s#]`)

func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			out = append(out, t...)
		}
	}
	return out
}

func parseDoc(chunk []byte, src Source, budget int64) ([]Doc, int64, error) {
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
		docs, err := listItems(js, items, src)
		return docs, int64(len(js)), err
	}
	if err := checkObject(m, src); err != nil {
		return nil, 0, err
	}
	return []Doc{newDoc(js, m, src)}, int64(len(js)), nil
}

// listItems expands a List whose JSON is js: each item's Doc keeps exactly its own bytes.
func listItems(js []byte, items any, src Source) ([]Doc, error) {
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
		if err := checkObject(m, s); err != nil {
			return nil, err
		}
		docs = append(docs, newDoc(raw.Items[i], m, s))
	}
	return docs, nil
}

func checkObject(m map[string]any, src Source) error {
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

// ReadFile reads one file (or "-", stdin) of at most MaxFileSize bytes.
func ReadFile(name string, stdin io.Reader) ([]byte, error) { return readFile(name, stdin) }

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

// IsGenerated recognises a file rebasegen generated by its header (emit writes it), also nested
// in the Secret format.
func IsGenerated(data []byte) bool {
	for _, l := range bytes.SplitN(data, []byte("\n"), 16) {
		if bytes.HasPrefix(bytes.TrimLeft(l, " "), []byte("#! Generated by rebasegen ")) {
			return true
		}
	}
	return false
}
