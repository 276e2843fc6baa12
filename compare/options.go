package compare

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/fielddiff"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/words"
)

// WriteMode is how the caller writes the desired object.
type WriteMode int

const (
	// Apply is server-side apply (PATCH application/apply-patch+yaml) under a field manager.
	Apply WriteMode = iota + 1
	// Update is an update (PUT) of the whole desired object.
	Update
)

// Option configures a Comparer.
type Option func(*config) error

type config struct {
	mode           WriteMode
	fieldManager   string
	crds           []load.Doc
	ignorePaths    []ignorePath
	ignoreManagers map[string]bool
	minor          int
}

// ignorePath is a path given to WithIgnorePaths: as given, parsed, and as Field.Path writes it.
type ignorePath struct {
	given string
	path  fielddiff.Path
	text  string
}

// WithApply says the caller writes with server-side apply under fieldManager (the
// FieldManager of its ApplyOptions / PatchOptions).
func WithApply(fieldManager string) Option {
	return func(c *config) error {
		if fieldManager == "" {
			return errors.New("WithApply: the field manager is empty")
		}
		if c.mode != 0 {
			return errors.New("WithApply: a write mode is given already: give one of WithApply and WithUpdate, once")
		}
		c.mode, c.fieldManager = Apply, fieldManager
		return nil
	}
}

// WithUpdate says the caller writes with an update (PUT) of the desired object as it is.
func WithUpdate() Option {
	return func(c *config) error {
		if c.mode != 0 {
			return errors.New("WithUpdate: a write mode is given already: give one of WithApply and WithUpdate, once")
		}
		c.mode, c.fieldManager = Update, ""
		return nil
	}
}

// WithCRDs gives the CustomResourceDefinitions of the custom resources compared, whose
// structural schema defaults the server applies (apiextensions.k8s.io/v1 objects, typed or
// unstructured).
func WithCRDs(crds ...runtime.Object) Option {
	return func(c *config) error {
		for i, o := range crds {
			if o == nil || reflect.ValueOf(o).Kind() == reflect.Pointer && reflect.ValueOf(o).IsNil() {
				return fmt.Errorf("WithCRDs: CRD %d is nil", i+1)
			}
			u, err := toUnstructured(o, fmt.Sprintf("WithCRDs: CRD %d", i+1))
			if err != nil {
				return err
			}
			if u.GetKind() != "CustomResourceDefinition" || !strings.HasPrefix(u.GetAPIVersion(), "apiextensions.k8s.io/") {
				return fmt.Errorf("WithCRDs: CRD %d is %s %s, not a CustomResourceDefinition", i+1, words.A(u.GetAPIVersion()), u.GetKind())
			}
			if u.GetAPIVersion() != "apiextensions.k8s.io/v1" {
				return fmt.Errorf("WithCRDs: CRD %d (%s) is %s, whose schema is not read: give it as apiextensions.k8s.io/v1 (the API server returns it so)", i+1, u.GetName(), u.GetAPIVersion())
			}
			d, err := load.NewDoc(load.Object{Unstructured: u, Source: load.Source{File: "WithCRDs", Doc: i + 1}})
			if err != nil {
				return err
			}
			c.crds = append(c.crds, d)
		}
		return nil
	}
}

// WithIgnorePaths leaves fields out of the comparison: a path as Field.Path writes it ignores
// that field and everything below it. List items are addressed by their merge keys
// (spec.template.spec.containers[name=sidecar]) or, in lists without keys, by index
// (spec.tolerations[0]); map keys that are not plain words are quoted
// (metadata.annotations["example.com/checksum"]). New refuses a path that does not parse;
// Compare refuses one that, in the compared object's kind, selects list items otherwise than
// Field.Path names them (an item of a keyed list by index, by some of its keys), as it would
// ignore nothing.
func WithIgnorePaths(paths ...string) Option {
	return func(c *config) error {
		for _, p := range paths {
			p = strings.TrimPrefix(strings.TrimSpace(p), ".")
			if p == "" {
				return errors.New("WithIgnorePaths: an empty path")
			}
			parsed, err := parseFieldPath(p)
			if err != nil {
				return fmt.Errorf("WithIgnorePaths: %q: %w", p, err)
			}
			c.ignorePaths = append(c.ignorePaths, ignorePath{given: p, path: parsed, text: parsed.String()})
		}
		return nil
	}
}

// WithIgnoreManagers leaves out the fields the named managers own (as managedFields names
// them): their values are no reason to write.
func WithIgnoreManagers(managers ...string) Option {
	return func(c *config) error {
		if c.ignoreManagers == nil {
			c.ignoreManagers = map[string]bool{}
		}
		for _, m := range managers {
			c.ignoreManagers[m] = true
		}
		return nil
	}
}

// WithKubernetesMinor states the minor version of the cluster's API server (37 for v1.37).
// Defaults are those of the Kubernetes code this package links (KubernetesMinor): New refuses
// another minor rather than judge with defaults the cluster may not have.
func WithKubernetesMinor(minor int) Option {
	return func(c *config) error {
		if minor <= 0 {
			return fmt.Errorf("WithKubernetesMinor: %d is no minor version of Kubernetes 1 (%d for this build)", minor, KubernetesMinor())
		}
		c.minor = minor
		return nil
	}
}

// KubernetesMinor is the minor version of the Kubernetes whose defaulting code judges.
func KubernetesMinor() int {
	parts := strings.Split(strings.TrimPrefix(kappconv.Kubernetes, "v"), ".")
	if len(parts) < 2 {
		return 0
	}
	m, _ := strconv.Atoi(parts[1])
	return m
}

// parseFieldPath reads a path as Field.Path writes it (dotted plain keys; [key=value,...] for a
// list item by its merge keys, [i] by index, [=value] in a set, ["key"] for any map key), or says
// what is wrong and where. Its String is the path as Field.Path writes it (a quoted plain key
// bare, merge keys in order).
func parseFieldPath(p string) (fielddiff.Path, error) {
	var out fielddiff.Path
	at := func(i int, format string, args ...any) error {
		return fmt.Errorf("at byte %d: "+format, append([]any{i + 1}, args...)...)
	}
	field := func(name string) {
		out = append(out, fieldpath.PathElement{FieldName: &name})
	}
	i := 0
	for i < len(p) {
		switch {
		case p[i] == '[':
			end := strings.IndexByte(p[i:], ']')
			if p[i+1:] != "" && p[i+1] == '"' {
				q, err := strconv.QuotedPrefix(p[i+1:])
				if err != nil {
					return nil, at(i+1, "an unterminated quoted key")
				}
				end = 1 + len(q)
				if i+end >= len(p) || p[i+end] != ']' {
					return nil, at(i+end, "the quoted key is not followed by ]")
				}
				k, _ := strconv.Unquote(q)
				field(k)
				i += end + 1
				continue
			}
			if end < 0 {
				return nil, at(i, "[ without ]")
			}
			if i == 0 {
				return nil, at(i, "a list item first: the object is a map, its paths start with a field")
			}
			inner := p[i+1 : i+end]
			switch {
			case inner == "":
				return nil, at(i, "an empty []")
			case strings.HasPrefix(inner, "="):
				v := value.NewValueInterface(inner[1:])
				out = append(out, fieldpath.PathElement{Value: &v})
			case isDigits(inner):
				if len(inner) > 1 && inner[0] == '0' {
					return nil, at(i, "[%s]: an index is written without leading zeros", inner)
				}
				n, _ := strconv.Atoi(inner)
				out = append(out, fieldpath.PathElement{Index: &n})
			default:
				key := value.FieldList{}
				for _, kv := range strings.Split(inner, ",") {
					k, v, ok := strings.Cut(kv, "=")
					if !ok || !isWord(k) || v == "" {
						return nil, at(i, "[%s] is no list item ([key=value,...], [index], [=value]) nor a quoted map key ([\"%s\"])", inner, inner)
					}
					for _, f := range key {
						if f.Name == k {
							return nil, at(i, "[%s] names the key %s twice", inner, k)
						}
					}
					key = append(key, value.Field{Name: k, Value: value.NewValueInterface(v)})
				}
				key.Sort()
				out = append(out, fieldpath.PathElement{Key: &key})
			}
			i += end + 1
		case p[i] == '.' && i > 0:
			i++
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			if err := wordAt(p, i, j); err != nil {
				return nil, err
			}
			field(p[i:j])
			i = j
		default:
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			if i > 0 {
				return nil, at(i, "expected . or [")
			}
			if err := wordAt(p, i, j); err != nil {
				return nil, err
			}
			field(p[i:j])
			i = j
		}
	}
	return out, nil
}

func wordAt(p string, i, j int) error {
	switch {
	case i == j:
		return fmt.Errorf("at byte %d: an empty field name", i+1)
	case !isWord(p[i:j]):
		return fmt.Errorf("at byte %d: %s is not a plain word (letters, digits, _ and -): quote it, [%q]", i+1, p[i:j], p[i:j])
	}
	return nil
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != "" && len(s) <= 9
}
