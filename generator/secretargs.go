package generator

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// SecretDerivedArgs are the package's --value and --value-yaml arguments (as given) a rendered
// Secret's value may be derived from, for a Regenerate line to record redacted
// (emit.Options.WithoutSecretValues, which also redacts those a Secret holds as given): the
// package rendered again with that argument's value changed in every character (a number
// changed, a boolean negated) renders a Secret's data differently, or fails (probe6 finding 6: a
// password upper-cased or hashed into a Secret was written in clear into the committed file).
// A package rendering no Secret is not rendered again.
func SecretDerivedArgs(in Inputs) (map[string]bool, error) {
	in = in.withReader()
	p := in.Package
	if p.Empty() || len(p.Values)+len(p.ValuesYAML) == 0 {
		return nil, nil
	}
	base, err := p.RenderInput(in.Reader)
	if err != nil {
		return nil, err
	}
	secrets, err := secretsOf(base)
	if err != nil || len(secrets) == 0 {
		return nil, err
	}
	derived := map[string]bool{}
	for _, isYAML := range []bool{false, true} {
		for i, a := range *flagOf(&p, isYAML) {
			key, value, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			changed, ok := changedValue(value, isYAML)
			if ok {
				q := p
				q.Values, q.ValuesYAML = slices.Clone(p.Values), slices.Clone(p.ValuesYAML)
				(*flagOf(&q, isYAML))[i] = key + "=" + changed
				docs, err := q.RenderInput(in.Reader)
				var again map[string][]string
				if err == nil {
					again, err = secretsOf(docs)
				}
				ok = err == nil && maps.EqualFunc(secrets, again, slices.Equal)
			}
			if !ok {
				derived[a] = true
			}
		}
	}
	return derived, nil
}

func flagOf(p *yttrender.Package, yaml bool) *[]string {
	if yaml {
		return &p.ValuesYAML
	}
	return &p.Values
}

// changedValue is value with every character changed (a --value's), or for a --value-yaml's a
// string so changed, a number plus one, a boolean negated; ok is false for other values.
func changedValue(value string, isYAML bool) (string, bool) {
	change := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == 'a' {
				return 'b'
			}
			return 'a'
		}, s)
	}
	if !isYAML {
		return change(value), true
	}
	var v any
	if yaml.Unmarshal([]byte(value), &v) != nil {
		return "", false
	}
	switch t := v.(type) {
	case string:
		q, _ := yaml.Marshal(change(t))
		return strings.TrimSpace(string(q)), true
	case float64:
		return strconv.FormatFloat(t+1, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(!t), true
	}
	return "", false
}

// secretsOf are the values of each Secret among docs (load.SecretValues), sorted, by identity.
func secretsOf(docs []load.Doc) (map[string][]string, error) {
	out := map[string][]string{}
	for _, d := range docs {
		if d.GroupKind() != (schema.GroupKind{Kind: "Secret"}) {
			continue
		}
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		vs := load.SecretValues(o.Unstructured)
		slices.Sort(vs)
		out[d.Namespace+"/"+d.Name] = vs
	}
	return out, nil
}
