package lint

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/runtime/schema"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
)

// at is a value as kapp reads it (v, from sigs.k8s.io/yaml like kapp) with the yaml.v3 nodes it
// came from, which only give line numbers. Either may be missing.
type at struct {
	v   any
	key *yaml.Node // the mapping key holding the value
	n   *yaml.Node
}

// field looks a key up the way encoding/json matches struct fields: exactly, else ignoring case.
func (a at) field(name string) at {
	var out at
	if m, ok := a.v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if k, ok := pick(keys, name); ok {
			out.v, name = m[k], k
		}
	}
	if a.n != nil && a.n.Kind == yaml.MappingNode {
		var keys []string
		for i := 0; i+1 < len(a.n.Content); i += 2 {
			keys = append(keys, a.n.Content[i].Value)
		}
		if k, ok := pick(keys, name); ok {
			i := 2 * indexOf(keys, k)
			out.key, out.n = a.n.Content[i], deref(a.n.Content[i+1])
		}
	}
	return out
}

func (a at) present() bool { return a.v != nil || a.key != nil }

func (a at) items() []at {
	list, _ := a.v.([]any)
	out := make([]at, len(list))
	for i := range list {
		out[i].v = list[i]
		if a.n != nil && a.n.Kind == yaml.SequenceNode && i < len(a.n.Content) {
			out[i].n = deref(a.n.Content[i])
		}
	}
	return out
}

func (a at) keys() []string {
	m, _ := a.v.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func pick(keys []string, name string) (string, bool) {
	if indexOf(keys, name) >= 0 {
		return name, true
	}
	for _, k := range keys {
		if strings.EqualFold(k, name) {
			return k, true
		}
	}
	return "", false
}

func indexOf(keys []string, k string) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return -1
}

func deref(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode {
		return n.Alias
	}
	return n
}

// field is one key kapp's decoder knows, derived from its structs.
type field struct {
	name string // as kapp's docs write it
	typ  reflect.Type
}

// fieldsOf lists the keys encoding/json decodes into t: json tag names, else the field name
// (which json matches ignoring case; written lowerCamel like kapp's docs).
func fieldsOf(types ...reflect.Type) []field {
	var out []field
	for _, t := range types {
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && jsonName(f) != "-" {
				out = append(out, field{jsonName(f), f.Type})
			}
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
		return name
	}
	return lowerCamel(f.Name)
}

func lowerCamel(s string) string {
	r := []rune(s)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) {
		n-- // APIGroupKindMatcher: the G starts the next word
	}
	for i := 0; i < n; i++ {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

func names(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

var (
	pathPartType   = reflect.TypeOf(ctlres.PathPart{})
	pathPartFields = fieldsOf(reflect.TypeOf(ctlres.PathPartRegex{}), reflect.TypeOf(ctlres.PathPartArrayIndex{}))
)

// unknownKeys reports every key below a that kapp's struct t has no field for: kapp drops them
// silently. where names the enclosing key for the message.
func (c *checker) unknownKeys(a at, t reflect.Type, where string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var fields []field
	switch {
	case t == pathPartType: // a custom unmarshaler: a string, or {regex} or {index}/{allIndexes}
		fields, where = pathPartFields, "path part"
	case t.Kind() == reflect.Slice:
		for _, item := range a.items() {
			c.unknownKeys(item, t.Elem(), where)
		}
		return
	case t.Kind() == reflect.Struct:
		fields = fieldsOf(t)
	default:
		return
	}
	if _, isMap := a.v.(map[string]any); !isMap {
		return // a type mismatch: kapp's decoder reports it, see checker.rule
	}
	for _, k := range a.keys() {
		var f *field
		for i := range fields {
			if strings.EqualFold(fields[i].name, k) {
				f = &fields[i]
				break
			}
		}
		if f == nil {
			c.unknownKey(a, k, where, names(fields))
			continue
		}
		if t != pathPartType {
			c.unknownKeys(a.field(k), f.typ, f.name)
		}
	}
}

func (c *checker) unknownKey(parent at, k, where string, known []string) {
	msg := fmt.Sprintf("unknown key %q in %s: kapp ignores it (known keys: %s)", k, where, strings.Join(known, ", "))
	suggestion := ""
	// A name or namespace in a kind matcher is the classic over-broad rule: the rule silently
	// applies to every object of the kind.
	if (where == "apiVersionKindMatcher" || where == "apiGroupKindMatcher") && (k == "name" || k == "namespace") {
		kind, _ := parent.field("kind").v.(string)
		every := fmt.Sprintf("every %v %s", parent.field("apiVersion").v, kind)
		if where == "apiGroupKindMatcher" {
			every = fmt.Sprintf("every %s of API group %q", kind, parent.field("apiGroup").v)
		}
		msg = fmt.Sprintf("unknown key %q in %s: kapp ignores it, so the rule applies to %s, not one", k, where, every)
		ns, _ := parent.field("namespace").v.(string)
		name, _ := parent.field("name").v.(string)
		group, _ := parent.field("apiGroup").v.(string)
		if apiVersion, ok := parent.field("apiVersion").v.(string); ok && where == "apiVersionKindMatcher" {
			gv, _ := schema.ParseGroupVersion(apiVersion)
			group = gv.Group
		}
		switch {
		case c.scope.ClusterScoped(schema.GroupKind{Group: group, Kind: kind}):
			ns = `""`
		case ns == "":
			ns = "NAMESPACE"
			for _, r := range c.resources { // the resource the author meant, if the inputs have it
				if r.id.Kind == kind && r.id.Name == name {
					ns = r.id.Namespace
				}
			}
		}
		if name == "" {
			name = "NAME"
		}
		suggestion = fmt.Sprintf("kindNamespaceNameMatcher: {kind: %s, namespace: %s, name: %s}", kind, ns, name)
	}
	c.add(Error, parent.field(k), msg, suggestion)
}
