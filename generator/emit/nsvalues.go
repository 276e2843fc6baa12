package emit

// --namespace-value: matchers whose namespace follows a ytt data value, so that the rules follow
// the install namespace of the package.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rebasegen/rebasegen/generator/synth"
)

// valueKey is a ytt data values key as #@ data.values.KEY reads it: Starlark identifiers joined
// by dots. Anything else (a newline, "x or fail()") would be template code in the rules file.
var valueKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

func checkValueKeys(flags []string) error {
	for _, f := range flags {
		key := f
		if _, k, ok := strings.Cut(f, "="); ok {
			key = k
		}
		if !valueKey.MatchString(key) {
			return fmt.Errorf("--namespace-value %q: the key must be a ytt data value name (letters, digits and _, not starting with a digit; nested with dots)", f)
		}
	}
	return nil
}

// NamespaceValues maps namespaces to ytt data value keys from --namespace-value flags: NS=KEY
// maps one namespace, a bare KEY every namespace the rules' matchers name.
func NamespaceValues(flags []string, rules []synth.Rule) map[string]string {
	out := map[string]string{}
	for _, v := range flags {
		if ns, key, ok := strings.Cut(v, "="); ok {
			out[ns] = key
			continue
		}
		for _, r := range rules {
			for _, m := range r.Matchers {
				m.Walk(func(m synth.Matcher) {
					if m.KindNamespaceName != nil && m.KindNamespaceName.Namespace != "" {
						out[m.KindNamespaceName.Namespace] = v
					}
					if m.Versioned != nil && m.Versioned.Namespace != "" {
						out[m.Versioned.Namespace] = v
					}
				})
			}
		}
	}
	return out
}
