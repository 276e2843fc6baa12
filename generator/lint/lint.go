// Package lint checks kapp Config documents, hand-written or generated, for rebase rules that
// kapp reads differently from what their author meant: keys it silently ignores, matchers that
// never match, rules that make kapp panic or do nothing, rules kapp already has, and rules broad
// enough to hide real changes. Every finding names the file and line of the offending key.
//
// kapp parses Configs leniently (sigs.k8s.io/yaml into its own structs), so the checks use
// kapp's structs and matcher code, not a copy of its schema.
package lint

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/rulesets"
)

type Severity string

const (
	Error   Severity = "error"   // kapp rejects the Config, panics, or the rule does not do what it says
	Warning Severity = "warning" // the rule works but is redundant, stale or broader than needed
)

// Finding is one problem. Rule is the 0-based index in the Config's rebaseRules (kapp counts
// from 0 in its own errors), -1 for a problem with the document itself.
type Finding struct {
	Severity   Severity `json:"severity"`
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Rule       int      `json:"rule"`
	Message    string   `json:"message"`
	Suggestion string   `json:"suggestion"`
}

// Options say what to lint and against what. Without Set only the Configs themselves are checked.
type Options struct {
	Rules  []string     // files or directories holding kapp Configs or ConfigMaps labelled kapp.k14s.io/config
	Reader *load.Reader // reads Rules ("-": stdin)
	// Set holds the objects the rules are for: desired objects (paired or to be created), CRDs.
	Set *pair.Set
	// Desired: desired objects were given, so every rule and matcher must match one.
	Desired bool
	// Ruleset names the cluster-scoped kinds; nil: the built-in rulesets.
	Ruleset *rulesets.Ruleset
	// Generated is what rebasegen generate writes for the pairs (nil without live objects): the
	// narrower paths suggested for a broad rule.
	Generated *synth.Result
	// Hidden is the verdict stage's judgement of the rules in force against the paired objects
	// (nil without live objects): each rule hiding a change made in Git is an error.
	Hidden []Hidden
	// Rendered are rule paths ytt renders (a ytt-format file, a package's config directory),
	// linted as rendered: line positions are unknown there.
	Rendered []Rendered
}

// Rendered is a rule path's objects as ytt rendered them.
type Rendered struct {
	Path    string
	Line    int // where in Path the template starts (a rules Secret's document), 0 when unknown
	Objects []load.Object
}

// SecretKey is where a rules Secret (rebasegen generate --output secret) holds its Configs, in
// stringData or data: the file kapp-controller adds to the package's ytt step.
const SecretKey = "rebase-rules.yml"

// Check lints every kapp Config found under opts.Rules. The error is for unreadable input only.
func Check(opts Options) ([]Finding, error) {
	kappglobal.Prepare() // kapp's parser checks minimumRequiredVersion against its own version
	env, err := newEnv(opts)
	if err != nil {
		return nil, err
	}
	docs, findings, err := readConfigs(opts.Rules, opts.Reader, opts.Rendered)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 && len(findings) == 0 {
		return nil, fmt.Errorf("no kapp Config (apiVersion %s, kind %s), no ConfigMap labelled %s and no Secret holding %s in %v", kappconv.ConfigAPIVersion, kappconv.ConfigKind, kappconv.ConfigLabel, SecretKey, opts.Rules)
	}
	for _, d := range docs {
		c := &checker{env: env, doc: d, rule: -1}
		c.config()
		findings = append(findings, c.findings...)
	}
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Message < b.Message
	})
	return findings, nil
}

// Count returns the number of errors and warnings.
func Count(fs []Finding) (errors, warnings int) {
	for _, f := range fs {
		if f.Severity == Error {
			errors++
		} else {
			warnings++
		}
	}
	return errors, warnings
}

// env is what the rules are checked against.
type env struct {
	scope     pair.Scope // cluster-scoped kinds: the rulesets' and the CRDs'
	desired   bool       // --desired given: rules and matchers must match something
	resources []resource // desired objects, namespace defaulted as kapp prepares them
	// byName: the resources by kind, namespace and name as kapp reads them, the only ones a
	// kindNamespaceNameMatcher (which compares those three) or a matcher requiring it can match
	byName   map[[3]string][]resource
	gen      *synth.Result
	defaults []ctlconf.RebaseRule
	hiddenBy []Hidden
}

type resource struct {
	id   pair.Identity
	obj  *unstructured.Unstructured
	kapp ctlres.Resource
	live bool // paired with a live object, so generate has rules for it
}

func newEnv(opts Options) (*env, error) {
	e := &env{desired: opts.Desired, gen: opts.Generated, hiddenBy: opts.Hidden}
	var err error
	if e.defaults, err = kappDefaults(); err != nil {
		return nil, err
	}
	rs := opts.Ruleset
	if rs == nil {
		if rs, err = rulesets.Load(); err != nil {
			return nil, err
		}
	}
	set := opts.Set
	if set == nil {
		e.scope, err = pair.NewScope(rs, nil)
		return e, err
	}
	if e.scope, err = pair.NewScope(rs, set.CRDs); err != nil {
		return nil, err
	}
	add := func(id pair.Identity, d load.Doc, live bool) error {
		o, err := d.Object()
		if err == nil {
			e.resources = append(e.resources, newResource(id, o.Unstructured, live))
		}
		return err
	}
	for _, p := range set.Pairs {
		if err := add(p.ID, p.Desired, true); err != nil {
			return nil, err
		}
	}
	for _, d := range set.Created {
		id := pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}
		if err := add(id, d, false); err != nil {
			return nil, err
		}
	}
	e.byName = map[[3]string][]resource{}
	for _, r := range e.resources {
		k := [3]string{r.kapp.Kind(), r.kapp.Namespace(), r.kapp.Name()}
		e.byName[k] = append(e.byName[k], r)
	}
	return e, nil
}

func newResource(id pair.Identity, u *unstructured.Unstructured, live bool) resource {
	return resource{id: id, obj: u, kapp: ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{}), live: live}
}

// kappDefaults parses kapp's built-in Config with kapp's own parser.
func kappDefaults() ([]ctlconf.RebaseRule, error) {
	res, err := ctlres.NewResourceFromBytes([]byte(ctlconf.NewDefaultConfigString()))
	if err != nil {
		return nil, err
	}
	cfg, err := ctlconf.NewConfigFromResource(res)
	return cfg.RebaseRules, err
}

// doc is one Config: its data as kapp reads it, and its YAML nodes for line numbers.
type doc struct {
	file   string
	obj    map[string]any
	node   *yaml.Node // the Config mapping; nil when positions are unknown
	line0  int        // where the document (or the ConfigMap's config.yml) starts
	offset int        // added to node lines: a Config inside a ConfigMap's config.yml
	note   string     // where in the file, when lines cannot say: a document of ytt's output
	ytt    int        // the document of ytt's output, when rendered
	secret bool       // read from a rules Secret's key, line0 that key's line
}

// readConfigs reads the Configs, labelled ConfigMaps and rules Secrets under paths and in
// rendered; other documents are ignored. A labelled ConfigMap kapp would reject is a finding, not
// an input error.
func readConfigs(paths []string, r *load.Reader, rendered []Rendered) ([]*doc, []Finding, error) {
	objs, err := load.Paths(paths, r)
	if err != nil {
		return nil, nil, err
	}
	var docs []*doc
	var findings []Finding
	nodes := map[string][]*yaml.Node{}
	read := func(o load.Object, file string, n *yaml.Node, line0 int, note string, ytt int) {
		isConfig := load.IsKappConfig(o.GetAPIVersion(), o.GetKind())
		_, labelled := o.GetLabels()[kappconv.ConfigLabel]
		var ds []*doc
		problem := ""
		switch {
		case isConfig:
			ds = []*doc{{obj: o.Object, node: n}}
		case labelled:
			var d *doc
			if d, problem = fromConfigMap(o, n); d != nil {
				ds = []*doc{d}
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
			d.file, d.note, d.ytt = file, note, ytt
			if d.line0 == 0 || n == nil {
				d.line0 = line0
			}
			docs = append(docs, d)
		}
	}
	for _, o := range objs {
		file := o.Source.File
		if _, ok := nodes[file]; !ok {
			data, _ := r.ReadFile(file) // read by load already (stdin and pipes: the same data); positions are optional
			nodes[file] = documentNodes(data)
		}
		read(o, file, find(nodes[file], o.Source), o.Source.Line, "", 0)
	}
	for _, r := range rendered {
		for _, o := range r.Objects {
			read(o, r.Path, nil, r.Line, fmt.Sprintf("ytt output document %d: ", o.Source.Doc), o.Source.Doc)
		}
	}
	return docs, findings, nil
}

// fromConfigMap reads the Config a labelled ConfigMap holds under data."config.yml"; a problem
// when kapp rejects the ConfigMap.
func fromConfigMap(o load.Object, n *yaml.Node) (*doc, string) {
	if o.GetAPIVersion() != "v1" || o.GetKind() != "ConfigMap" {
		return nil, "ConfigMap labelled " + kappconv.ConfigLabel + " is not a v1 ConfigMap: kapp rejects it"
	}
	text, found, _ := unstructured.NestedString(o.Object, "data", kappconv.ConfigKey)
	if !found {
		return nil, "ConfigMap labelled " + kappconv.ConfigLabel + " has no data." + kappconv.ConfigKey + ": kapp rejects it"
	}
	ds := embedded(o, text, at{n: n}.field("data").field(kappconv.ConfigKey).n)
	if len(ds) != 1 {
		return nil, "ConfigMap labelled " + kappconv.ConfigLabel + " does not hold exactly one kapp Config in data." + kappconv.ConfigKey + ": kapp rejects it"
	}
	return ds[0], ""
}

// fromSecret reads the Configs a rules Secret holds when it holds SecretKey alone, as plain YAML
// (PlainSecret), on the file's lines; none for any other Secret, which the caller renders as
// kapp-controller's ytt step renders its files and passes in Options.Rendered.
func fromSecret(o load.Object, n *yaml.Node) ([]*doc, string) {
	fs, err := SecretFiles(o)
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
