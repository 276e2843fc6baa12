package lint

// Where the Configs to lint are found: Config documents, labelled ConfigMaps' config.yml and
// rules Secrets' keys, with the YAML nodes their findings' lines come from.

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/words"
)

// doc is one Config: its data as kapp reads it, and its YAML nodes for line numbers.
type doc struct {
	file  string // where its lines are: the file as written, a rendered document's template
	given string // the rules path it was read from, as the verdict's rule locations name it (Hidden)
	// elsewhere: the nodes of a rendered document written in another file than file (an
	// overlay's), by node (writtenNodes)
	elsewhere map[*yaml.Node]string
	obj       map[string]any
	node      *yaml.Node // the Config mapping; nil when positions are unknown
	line0     int        // where the document (or the ConfigMap's config.yml) starts
	offset    int        // added to node lines: a Config inside a ConfigMap's config.yml
	note      string     // where in the file, when lines cannot say: a document of ytt's output
	ytt       int        // the document of ytt's output, when rendered
	secret    bool       // read from a rules Secret's key, line0 that key's line
	number    int        // the file's document, 0 when rendered (note says which of ytt's output)
	// kappController: rendered from a rules Secret (or read from one: secret), which only
	// kapp-controller reads
	kappController bool
	// regenerate: the file is rebasegen's output (its header), and this is the advice of every
	// finding on it: regenerate it, never edit it by hand ("" for a file of the user's)
	regenerate string
}

// readConfigs reads the Configs, labelled ConfigMaps and rules Secrets under paths and in
// rendered; other documents are ignored. A labelled ConfigMap kapp would reject is a finding, not
// an input error.
func readConfigs(paths []string, reader *load.Reader, rendered []Rendered) ([]*doc, []Finding, error) {
	objs, err := load.Paths(paths, reader)
	if err != nil {
		return nil, nil, err
	}
	var docs []*doc
	var findings []Finding
	nodes := map[string][]*yaml.Node{}
	read := func(o load.Object, file, given string, n *yaml.Node, line0 int, note string, ytt int) {
		isConfig := load.IsKappConfig(o.GetAPIVersion(), o.GetKind())
		_, labelled := o.GetLabels()[kappconv.ConfigLabel]
		var ds []*doc
		problem := ""
		switch {
		case isConfig:
			ds = []*doc{{obj: o.Object, node: n}}
		case labelled:
			d, p, ignored := fromConfigMap(o, n)
			if problem = p; d != nil {
				ds = []*doc{d}
			}
			if ignored != "" {
				findings = append(findings, Finding{Severity: Warning, File: file, Line: line0, Rule: -1, Message: note + ignored,
					Suggestion: "hold one Config in data." + kappconv.ConfigKey + " (its rules all in that one), or move the others into a ConfigMap each"})
			}
		case o.GetAPIVersion() == "v1" && o.GetKind() == "Secret":
			ds, problem = fromSecret(o, n)
			for _, d := range ds {
				d.secret = true
			}
		}
		if problem != "" {
			findings = append(findings, Finding{Severity: Error, File: file, Line: line0, Rule: -1, Message: note + problem})
		}
		for _, d := range ds {
			d.file, d.given, d.note, d.ytt = file, given, note, ytt
			if d.line0 == 0 || n == nil {
				d.line0 = line0
			}
			docs = append(docs, d)
		}
	}
	advice := map[string]string{}
	regenerate := func(file string, data []byte) string {
		if a, ok := advice[file]; ok {
			return a
		}
		advice[file] = regenerateAdvice(file, data, false)
		return advice[file]
	}
	replaced := map[load.Source]bool{}
	for _, r := range rendered {
		replaced[r.Replaces] = true
	}
	for _, o := range objs {
		if replaced[o.Source] {
			continue
		}
		file := o.Source.File
		if _, ok := nodes[file]; !ok {
			data, _ := reader.ReadFile(file) // read by load already (stdin and pipes: the same data); positions are optional
			nodes[file] = documentNodes(data)
			regenerate(file, data)
		}
		from := len(docs)
		read(o, file, file, find(nodes[file], o.Source), o.Source.Line, "", 0)
		for _, d := range docs[from:] {
			d.number, d.regenerate = o.Source.Doc, advice[file]
		}
	}
	for _, r := range rendered {
		for _, o := range r.Objects {
			file, line0, n := r.Path, r.Line, writtenNodes(o)
			if n != nil { // on the template's lines
				file, line0 = n.file, n.Line
			}
			from := len(docs)
			read(o, file, r.Path, n.node(), line0, fmt.Sprintf("ytt output document %d: ", o.Source.Doc), o.Source.Doc)
			for _, d := range docs[from:] {
				if n != nil {
					d.elsewhere = n.elsewhere
				}
				d.kappController = r.Replaces != load.Source{}
				if o.Source.Generated {
					// the template file ytt rendered it from: a ytt-format file, or one of a package's
					file := cmp.Or(o.Source.From, r.Path)
					data, _ := reader.ReadFile(file)
					d.regenerate = cmp.Or(regenerate(file, data), regenerateAdvice(file, nil, true))
				}
			}
		}
	}
	return docs, findings, nil
}

// regenerateAdvice is the advice for every finding on file when data, its content, bears rebasegen's
// header (or generated says it does, data unread): regenerate it with the command the header
// records; "" for a file of the user's, whose findings advise the edit.
func regenerateAdvice(file string, data []byte, generated bool) string {
	if !generated && !load.IsGenerated(data) {
		return ""
	}
	cmd, ok := emit.Regenerates(file, data)
	if !ok {
		return "rebasegen generated this file: regenerate it (rebasegen generate, with the inputs it was generated from; after the deploy, where check says so) rather than edit it by hand, which the next generate undoes"
	}
	return "rebasegen generated this file: regenerate it (after the deploy, where check says so) rather than edit it by hand, which the next generate undoes: " + cmd
}

// fromConfigMap reads the Config a labelled ConfigMap holds under data."config.yml"; a problem
// when kapp rejects the ConfigMap, a warning when documents follow the one kapp reads.
func fromConfigMap(o load.Object, n *yaml.Node) (d *doc, problem, warning string) {
	if o.GetAPIVersion() != "v1" || o.GetKind() != "ConfigMap" {
		return nil, "ConfigMap labelled " + kappconv.ConfigLabel + " is not a v1 ConfigMap: kapp rejects it", ""
	}
	text, found, _ := unstructured.NestedString(o.Object, "data", kappconv.ConfigKey)
	if !found {
		return nil, "ConfigMap labelled " + kappconv.ConfigLabel + " has no data." + kappconv.ConfigKey + ": kapp rejects it", ""
	}
	unreadable := "ConfigMap labelled " + kappconv.ConfigLabel + " holds no kapp Config kapp can read in data." + kappconv.ConfigKey + ": kapp rejects it"
	// kapp reads the text's first document alone (resources.NewResourceFromBytes:
	// sigs.k8s.io/yaml.Unmarshal) and ignores the rest
	var first map[string]any
	if err := sigsyaml.Unmarshal([]byte(text), &first); err != nil || len(first) == 0 {
		return nil, unreadable, ""
	}
	if apiVersion, kind := first["apiVersion"], first["kind"]; !load.IsKappConfig(fmt.Sprint(apiVersion), fmt.Sprint(kind)) {
		return nil, fmt.Sprintf("ConfigMap labelled %s holds apiVersion %v kind %v first in data.%s: kapp rejects it (the first document is the one kapp reads: a kapp Config, apiVersion %s, kind %s)",
			kappconv.ConfigLabel, apiVersion, kind, kappconv.ConfigKey, kappconv.ConfigAPIVersion, kappconv.ConfigKind), ""
	}
	ds := embedded(o, text, at{n: n}.field("data").field(kappconv.ConfigKey).n)
	if len(ds) == 0 {
		return nil, unreadable, ""
	}
	ignored := ""
	if docs, err := load.Bytes(o.Source.File, []byte(text)); err == nil && len(docs) > 1 {
		ignored = fmt.Sprintf("kapp reads only the first document of data.%s and ignores the %s after it", kappconv.ConfigKey, words.Count(len(docs)-1, "document"))
	}
	return ds[0], "", ignored
}

// fromSecret reads the Configs a rules Secret holds when it holds SecretKey alone, as plain YAML
// (PlainSecret), on the file's lines; none for any other Secret, which the caller renders as
// kapp-controller's ytt step renders its files and passes in Options.Rendered.
func fromSecret(o load.Object, n *yaml.Node) ([]*doc, string) {
	fs, err := SecretFiles(o)
	if err != nil && !HoldsRulesKey(o) {
		return nil, "" // not a rules Secret: an ordinary one among manifests, which are not lint's
	}
	if err != nil {
		return nil, err.Error()
	}
	if !PlainSecret(fs) {
		return nil, ""
	}
	var value *yaml.Node // the text's node in the file, for its lines: stringData only (data is base64)
	if _, inString, _ := unstructured.NestedString(o.Object, "stringData", SecretKey); inString {
		value = at{n: n}.field("stringData").field(SecretKey).n
	}
	return embedded(o, fs[0].Text, value), ""
}

// HoldsRulesKey says a Secret holds SecretKey in data or stringData, whatever its values: a
// rules Secret, whose keys that do not decode are its author's mistake. A Secret without it whose
// values do not decode is an ordinary one (a manifest's data.unset: null, which the API server
// stores as ""), not a rules Secret to call wrong (newcomer6 N6-3).
func HoldsRulesKey(o load.Object) bool {
	for _, field := range []string{"data", "stringData"} {
		if m, _, _ := unstructured.NestedMap(o.Object, field); m != nil {
			if _, ok := m[SecretKey]; ok {
				return true
			}
		}
	}
	return false
}

// SecretFile is a key of a rules Secret and its value: a file kapp-controller writes into the
// package's ytt step (fetch/inline.go writeFromSecret writes every key of the Secret).
type SecretFile struct{ Key, Text string }

// SecretFiles are every key a Secret holds, sorted: its data (base64) with stringData over it, as
// the API server stores them. The error names the key whose data is not base64.
func SecretFiles(o load.Object) ([]SecretFile, error) {
	byKey := map[string]string{}
	data, _, _ := unstructured.NestedMap(o.Object, "data")
	for k, v := range data {
		enc, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("Secret data.%s is not a string", k)
		}
		dec, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return nil, fmt.Errorf("Secret data.%s is not base64", k)
		}
		byKey[k] = string(dec)
	}
	str, _, _ := unstructured.NestedMap(o.Object, "stringData")
	for k, v := range str {
		text, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("Secret stringData.%s is not a string", k)
		}
		byKey[k] = text
	}
	out := make([]SecretFile, 0, len(byKey))
	for k, v := range byKey {
		out = append(out, SecretFile{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// PlainSecret says a Secret's files are SecretKey alone, without ytt annotations: ytt renders it
// as written.
func PlainSecret(fs []SecretFile) bool {
	return len(fs) == 1 && fs[0].Key == SecretKey && !yttrender.HasYTTAnnotations(SecretKey, []byte(fs[0].Text))
}

// embedded reads the kapp Configs in text, the value node of o holding it (nil: unknown): their
// lines are the file's where the value is a literal block (key: |), which keeps the text's lines
// aligned with the file's, else the value's. Text kapp cannot parse holds none.
func embedded(o load.Object, text string, value *yaml.Node) []*doc {
	inner, err := load.Bytes(o.Source.File, []byte(text))
	if err != nil {
		return nil
	}
	var nodes []*yaml.Node
	literal := value != nil && value.Style&yaml.LiteralStyle != 0
	if literal {
		nodes = documentNodes([]byte(text))
	}
	var out []*doc
	for _, x := range inner {
		if !load.IsKappConfig(x.GetAPIVersion(), x.GetKind()) {
			continue
		}
		d := &doc{obj: x.Object}
		if value != nil {
			d.line0 = value.Line
		}
		if literal {
			if d.node = find(nodes, x.Source); d.node != nil {
				d.offset = value.Line
			}
		}
		out = append(out, d)
	}
	return out
}

// written is a document ytt rendered as yaml nodes on its template's lines.
type written struct {
	*yaml.Node
	file      string                // the template: where ytt positions the document
	elsewhere map[*yaml.Node]string // the nodes written in another file, each on that file's line
}

func (w *written) node() *yaml.Node {
	if w == nil {
		return nil
	}
	return w.Node
}

// writtenNodes is o, a document ytt rendered, as yaml nodes each on the line of the template where
// ytt positions it (load.Source.Written), as a file's nodes are on its lines: a rule's findings
// name the line a person edits, not a line of ytt's output, which is no file's. A node written in
// another file than the document (an overlay's) is on that file's line (elsewhere); one whose
// position is not known, no line (0). nil when ytt's positions are not known.
func writtenNodes(o load.Object) *written {
	w := o.Source.Written
	at, ok := w.At(0)
	if !ok {
		return nil
	}
	out := &written{file: at.File, elsewhere: map[*yaml.Node]string{}}
	var stack []*yaml.Node // the nodes holding the one visited
	if !w.Walk(o.Object, func(i int, path []any, v any) {
		n := &yaml.Node{Kind: yaml.ScalarNode}
		src, known := w.At(i)
		if known {
			n.Line = src.Line
		}
		switch v.(type) {
		case map[string]any:
			n.Kind = yaml.MappingNode
		case []any:
			n.Kind = yaml.SequenceNode
		}
		stack = stack[:len(path)]
		if len(path) > 0 {
			parent := stack[len(path)-1]
			if key, ok := path[len(path)-1].(string); ok { // an entry: its key's line is the value's
				k := &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: n.Line}
				parent.Content = append(parent.Content, k)
				if known && src.File != at.File {
					out.elsewhere[k] = src.File
				}
			}
			parent.Content = append(parent.Content, n)
		}
		if known && src.File != at.File {
			out.elsewhere[n] = src.File
		}
		stack = append(stack, n)
	}) {
		return nil
	}
	out.Node = stack[0]
	return out
}

// documentNodes parses every document of a file; a document yaml.v3 cannot parse ends the list
// (its findings then carry the document's line).
func documentNodes(data []byte) []*yaml.Node {
	var out []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if dec.Decode(&n) != nil {
			return out
		}
		if len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode {
			out = append(out, n.Content[0])
		}
	}
}

// find returns the node of the object load read at src: the first document starting at or after
// the document's separator line.
func find(nodes []*yaml.Node, src load.Source) *yaml.Node {
	for _, n := range nodes {
		if n.Line < src.Line {
			continue
		}
		if src.Item > 0 {
			items := at{n: n}.field("items").n
			if items == nil || len(items.Content) < src.Item {
				return nil
			}
			return items.Content[src.Item-1]
		}
		return n
	}
	return nil
}
