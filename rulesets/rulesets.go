// Package rulesets holds rebasegen's hand-written knowledge as data: field managers that apply
// or edit by hand, fields the API server calculates, webhook injections, fields admission plugins
// add and cluster-scoped kinds. Every entry names its source. Users add files of the same shape
// with --ruleset.
package rulesets

import (
	"embed"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

//go:embed *.yaml
var builtin embed.FS

// Ruleset is the union of all loaded files; each file may hold any of the sections.
type Ruleset struct {
	Appliers      []Manager     `json:"appliers,omitempty"`
	Humans        []Manager     `json:"humans,omitempty"`
	Controllers   []Manager     `json:"controllers,omitempty"`
	Calculated    []Field       `json:"calculated,omitempty"`
	Injected      []Injection   `json:"injected,omitempty"`
	Admission     []Plugin      `json:"admission,omitempty"`
	ClusterScoped []Kind        `json:"clusterScoped,omitempty"`
	Filled        []Filled      `json:"filled,omitempty"`
	Adoption      []Adopted     `json:"adoption,omitempty"`
	Operational   []Operational `json:"operational,omitempty"`
	Immutable     []Field       `json:"immutable,omitempty"`
	// DeployOptions are the kapp deploy flags a Package's deploy step may pass that leave what
	// kapp diffs and applies unchanged.
	DeployOptions []DeployOption `json:"deployOptions,omitempty"`
	// Dependent are defaults the API server's defaulting code chooses by whether other fields of
	// the object are empty.
	Dependent []Dependent `json:"dependent,omitempty"`
}

// Dependent is a field (Path, no list items) of one kind whose default the API server's
// defaulting code chooses by whether each field of Empty (dotted map keys, no list items) is
// empty (absent, null, [] or {}) or not: a copy of the live value is right only while each is as
// empty in the manifest as it was where the live value was defaulted.
type Dependent struct {
	Group  string   `json:"group"`
	Kind   string   `json:"kind"`
	Path   string   `json:"path"`
	Empty  []string `json:"empty"`
	Source string   `json:"source"`
}

// DeployOption is a kapp deploy flag (--name) that changes neither which resources kapp diffs
// nor what it applies; Values, when given, are the only values for which that holds, as kapp
// holds them once parsed (a bool is "true" or "false"). Min, when given, is the least number
// kapp deploys with, MinDuration the least duration, MaxDuration the greatest (beyond them kapp
// fails, or never gets to apply the changes: Source says how).
type DeployOption struct {
	Flag        string   `json:"flag"`
	Values      []string `json:"values,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	MinDuration string   `json:"minDuration,omitempty"` // as time.ParseDuration reads it
	MaxDuration string   `json:"maxDuration,omitempty"`
	Source      string   `json:"source"`
}

// DeployOption returns the kapp deploy flag --flag a Package's deploy step may pass, and whether
// it may pass it at all.
func (rs *Ruleset) DeployOption(flag string) (DeployOption, bool) {
	for _, o := range rs.DeployOptions {
		if o.Flag == flag {
			return o, true
		}
	}
	return DeployOption{}, false
}

// Operational is an annotation people stamp on purpose at run time, with the manager of the tool
// that stamps it.
type Operational struct {
	Path    string `json:"path"`
	Manager string `json:"manager"`
	Source  string `json:"source"`
}

// Filled is a field a controller fills in, known without managedFields, with the evidence the
// objects must show for it to apply.
type Filled struct {
	Group      string `json:"group"`
	Kind       string `json:"kind"`
	Path       string `json:"path"`
	Controller string `json:"controller"`
	When       When   `json:"when,omitempty"`
	Source     string `json:"source"`
}

// When is the evidence a Filled entry needs; empty: none.
type When struct {
	DesiredField string   `json:"desiredField,omitempty"` // a top-level field of the desired object
	Annotations  []string `json:"annotations,omitempty"`  // any of these on the desired or live object
	// NoManagedFields: the live object has none. For a controller that writes with Update on
	// every server that records managedFields, so that they credit it wherever it wrote the field.
	NoManagedFields bool `json:"noManagedFields,omitempty"`
}

// Adopted is another tool's bookkeeping that kapp drops once when it takes an object over.
type Adopted struct {
	Path   string `json:"path"`
	Tool   string `json:"tool"`
	Source string `json:"source"`
}

type Manager struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// Binary: the manager is the name of the binary's file (client-go's default user agent,
	// whose part before "/" the API server records), so a binary run under the file name it was
	// downloaded as records NAME-SUFFIX (kapp-linux-amd64, kapp-v0.66.0); so does a tool that
	// adds a suffix of its own (pulumi-kubernetes-RANDOM).
	Binary bool `json:"binary,omitempty"`
	// Autoscaler (controllers only): the entry's writes are the HorizontalPodAutoscaler
	// controller's scaling.
	Autoscaler bool `json:"autoscaler,omitempty"`
	// Operation and Subresource, when set, narrow the entry to the manager's writes of that
	// operation (Apply, Update) to that subresource (scale, status): one manager name can be
	// several tools (kubectl records "kubectl" for apply --server-side and for the commands that
	// set no fieldManager, kubectl scale among them). FindWrite picks the narrowest.
	Operation   string `json:"operation,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// Field is a field of one kind (Kind "*": of every kind) the server sets outside defaulting.
type Field struct {
	Group  string `json:"group"`
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Source string `json:"source"`
	// Unless (immutable fields only): a condition on the live object that, met, lets the field
	// change: a boolean field, true (a suspended Job's pod template), or FIELD=VALUE, a string
	// field holding VALUE (an Indexed Job's completions).
	Unless string `json:"unless,omitempty"`
	// Tandem (with Unless): a field the manifest must declare with the field's value for Unless
	// to let the change (an Indexed Job's completions change only with its parallelism).
	Tandem string `json:"tandem,omitempty"`
	// OnlyIf (immutable fields only): a boolean field of the live object that, true, makes the
	// field immutable; absent or false, the field may change (a ConfigMap's data).
	OnlyIf string `json:"onlyIf,omitempty"`
	// Kept (immutable fields only): the server does not refuse a change of the field but keeps
	// the live value on update (a Namespace's spec.finalizers): the deploy leaves it.
	Kept bool `json:"kept,omitempty"`
	// Except (immutable fields only): parts of the field the server lets change, each where the
	// live object and the change meet its conditions.
	Except []Exception `json:"except,omitempty"`
}

// Exception is a part of an immutable field the server lets change where every condition holds;
// the paths are dotted paths of fields; Path may hold [*] (any list item) where there is no Above
// or Below (those read the manifest's value at Path).
type Exception struct {
	Path string `json:"path"`
	// When: fields of the live object and the value each must hold; null: absent or empty.
	When map[string]*string `json:"when,omitempty"`
	// Above, Below: the manifest's quantity at Path must be more (less) than the live object's
	// quantity at this path.
	Above string `json:"above,omitempty"`
	Below string `json:"below,omitempty"`
	// ClassAllows: a boolean field of the live StorageClass the live object names
	// (spec.storageClassName) that must be true; not judged where that class is not among the
	// inputs.
	ClassAllows string `json:"classAllows,omitempty"`
	Source      string `json:"source"`
}

// Injection is a field a webhook or controller adds to any kind with a pod template.
type Injection struct {
	Controller string `json:"controller"`
	Path       string `json:"path"`
	Source     string `json:"source"`
}

// Plugin is a field a built-in admission plugin adds to objects of one kind during their create.
type Plugin struct {
	Plugin string `json:"plugin"`
	Group  string `json:"group"`
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Source string `json:"source"`
}

type Kind struct {
	Group  string `json:"group"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
}

// Load reads the built-in rulesets; Add adds the user's.
func Load() (*Ruleset, error) {
	var rs Ruleset
	entries, err := builtin.ReadDir(".")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		data, _ := builtin.ReadFile(n)
		if err := rs.Add(path.Join("rulesets", n), data); err != nil {
			return nil, err
		}
	}
	return &rs, nil
}

// Add adds the entries of a ruleset file, named name in errors. data is JSON or YAML; the caller
// reads the file (rebasegen's reader, with its limits and duplicate-key errors), so that this
// package, data, depends on no stage.
func (rs *Ruleset) Add(name string, data []byte) error {
	var f Ruleset
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return fmt.Errorf("ruleset %s: %w", name, err)
	}
	paths := append(pathsOf(f.Calculated), injectedPaths(f.Injected)...)
	for _, a := range f.Admission {
		paths = append(paths, a.Path)
	}
	for _, e := range f.Filled {
		paths = append(paths, e.Path)
	}
	for _, e := range f.Adoption {
		paths = append(paths, e.Path)
	}
	for _, e := range f.Operational {
		paths = append(paths, e.Path)
	}
	paths = append(paths, pathsOf(f.Immutable)...)
	for _, e := range f.Immutable {
		for _, x := range e.Except {
			paths = append(paths, x.Path)
			if strings.Contains(x.Path, "[") && (x.Above != "" || x.Below != "") {
				return fmt.Errorf("ruleset %s: immutable %s %s: except %q: a path with list items cannot have above or below", name, e.Kind, e.Path, x.Path)
			}
		}
	}
	for _, d := range f.Dependent {
		for _, p := range append([]string{d.Path}, d.Empty...) {
			if p == "" || strings.ContainsAny(p, "[]") || slices.Contains(strings.Split(p, "."), "") {
				return fmt.Errorf("ruleset %s: dependent %s %s: path %q: want dotted map keys, no list items", name, d.Kind, d.Path, p)
			}
		}
		if len(d.Empty) == 0 {
			return fmt.Errorf("ruleset %s: dependent %s %s: no empty fields", name, d.Kind, d.Path)
		}
	}
	for _, p := range paths {
		if _, err := PathPattern(p); err != nil {
			return fmt.Errorf("ruleset %s: path %q: %w", name, p, err)
		}
	}
	rs.Appliers = append(rs.Appliers, f.Appliers...)
	rs.Humans = append(rs.Humans, f.Humans...)
	rs.Controllers = append(rs.Controllers, f.Controllers...)
	rs.Calculated = append(rs.Calculated, f.Calculated...)
	rs.Injected = append(rs.Injected, f.Injected...)
	rs.Admission = append(rs.Admission, f.Admission...)
	rs.ClusterScoped = append(rs.ClusterScoped, f.ClusterScoped...)
	rs.Filled = append(rs.Filled, f.Filled...)
	rs.Adoption = append(rs.Adoption, f.Adoption...)
	rs.Operational = append(rs.Operational, f.Operational...)
	rs.Immutable = append(rs.Immutable, f.Immutable...)
	rs.DeployOptions = append(rs.DeployOptions, f.DeployOptions...)
	rs.Dependent = append(rs.Dependent, f.Dependent...)
	return nil
}

func pathsOf(fs []Field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

func injectedPaths(is []Injection) []string {
	var out []string
	for _, i := range is {
		out = append(out, i.Path)
	}
	return out
}

// PathPattern compiles a ruleset path: [*] matches any list item, a quoted key ending in *
// (["prefix*"]) any map key beginning with prefix, and the pattern also matches every field below
// the one it names.
//
// Compiled patterns are kept, by path: a comparison of one object (package compare) classifies
// one pair per call, and compiling every ruleset's patterns again each time was most of its cost.
// A Regexp is safe for concurrent use.
func PathPattern(p string) (*regexp.Regexp, error) {
	if p == "" {
		return nil, fmt.Errorf("empty path")
	}
	if re, ok := compiled.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	q := strings.ReplaceAll(regexp.QuoteMeta(p), `\[\*\]`, `\[[^\]]*\]`)
	q = strings.ReplaceAll(q, `\*"\]`, `[^"]*"\]`)
	re, err := regexp.Compile(`^` + q + `($|[.\[])`)
	if err == nil {
		compiled.Store(p, re)
	}
	return re, err
}

// compiled holds PathPattern's patterns by path.
var compiled sync.Map

// FindManager finds a manager by name in a list: the entry of that name, else a Binary entry
// whose name is name's prefix before a "-" (the binary under another file name).
func FindManager(ms []Manager, name string) (Manager, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	for _, m := range ms {
		if m.Binary && strings.HasPrefix(name, m.Name+"-") {
			return m, true
		}
	}
	return Manager{}, false
}

// FindWrite finds the entry describing one write of a manager (a managedFields entry: its
// manager, operation and subresource): of the entries of that name (as FindManager finds them),
// those whose Operation and Subresource are unset or the write's, the narrowest (the first of
// equals).
func FindWrite(ms []Manager, name, operation, subresource string) (Manager, bool) {
	best, narrowest := Manager{}, -1
	for _, binary := range []bool{false, true} {
		for _, m := range ms {
			if binary && !(m.Binary && strings.HasPrefix(name, m.Name+"-")) || !binary && m.Name != name ||
				m.Operation != "" && m.Operation != operation || m.Subresource != "" && m.Subresource != subresource {
				continue
			}
			n := 0
			for _, set := range []bool{m.Operation != "", m.Subresource != ""} {
				if set {
					n++
				}
			}
			if n > narrowest {
				best, narrowest = m, n
			}
		}
		if narrowest >= 0 {
			return best, true
		}
	}
	return Manager{}, false
}
