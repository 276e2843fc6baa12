package generator_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// TestSecretDerivedArgsRedacted (probe6 finding 6, second part): a --value the package renders
// into a Secret only transformed (upper-cased, hashed, a prefix of it) was written in clear into
// the Regenerate line: only a value a Secret holds as given was redacted. Each argument a
// Secret's data changes with is redacted; one rendered elsewhere only stays as given.
func TestSecretDerivedArgsRedacted(t *testing.T) {
	pkg := t.TempDir()
	for name, text := range map[string]string{
		"secret.yml": `#@ load("@ytt:data", "data")
#@ load("@ytt:sha256", "sha256")
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: demo}
stringData:
  password-sha256: #@ sha256.sum(data.values.password)
  password-upper: #@ data.values.password.upper()
  pin: #@ str(data.values.pin * 7)
  head: #@ data.values.token[0:3]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: greeting, namespace: demo}
data:
  text: #@ data.values.greeting
  replicas: #@ str(data.values.replicas)
`,
		"values.yml": "#@data/values\n---\npassword: \"\"\npin: 0\ntoken: \"\"\ngreeting: \"\"\nreplicas: 1\n",
	} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := yttrender.Package{Dirs: []string{pkg}, Values: []string{"password=HUNTER2xyz", "greeting=hello", "token=abcdef"},
		ValuesYAML: []string{"pin=1234", "replicas=3"}}
	derived, err := generator.SecretDerivedArgs(generator.Inputs{Package: p})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"password=HUNTER2xyz": true, "token=abcdef": true, "pin=1234": true}
	if !reflect.DeepEqual(derived, want) {
		t.Errorf("derived %v, want %v", derived, want)
	}
	o := emit.Options{ValueArgs: p.Values, ValueYAMLArgs: p.ValuesYAML}.WithoutSecretValues(nil, derived)
	r := "=" + emit.SecretValue
	if want := []string{"password" + r, "greeting=hello", "token" + r}; !reflect.DeepEqual(o.ValueArgs, want) {
		t.Errorf("--value recorded as %q, want %q", o.ValueArgs, want)
	}
	if want := []string{"pin" + r, "replicas=3"}; !reflect.DeepEqual(o.ValueYAMLArgs, want) {
		t.Errorf("--value-yaml recorded as %q, want %q", o.ValueYAMLArgs, want)
	}
}
