package load

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixtureFiles are the captured desired.yaml and live.yaml files, the fuzz targets' seeds.
func fixtureFiles(f *testing.F) [][]byte {
	f.Helper()
	paths, err := filepath.Glob("../../fixtures/*/*.yaml")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no fixtures (%v)", err)
	}
	var out [][]byte
	for _, p := range paths {
		if b := filepath.Base(p); b != "desired.yaml" && b != "live.yaml" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// FuzzLoad: any bytes either load or fail with an error naming the input, never panic or hang,
// and what loads is Kubernetes objects that say where they came from, and whose compact form
// (Doc) decodes again to an object with the identity the Doc holds.
func FuzzLoad(f *testing.F) {
	for _, data := range fixtureFiles(f) {
		f.Add(data)
	}
	for _, s := range []string{
		"", "---\n", "# c\n---\n---\n", "{}", "[]", "null", "apiVersion: v1\nkind: List\nitems: []\n",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: &a {x: *a}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\xff\n",
		"apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n",
		"apiVersion: v1\nkind: ConfigMapList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n",
		"a: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		docs, err := ParseDocs("fuzz.yaml", data)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("loading %d bytes took %s", len(data), d)
		}
		if err != nil {
			var le *Error
			if !errors.As(err, &le) || le.Source.File != "fuzz.yaml" || le.Source.Doc < 1 || le.Source.Line < 1 {
				t.Fatalf("error does not locate the input: %#v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml: document ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		lastDoc := 0
		for _, d := range docs {
			o, err := d.Object()
			if err != nil {
				t.Fatalf("%s: parsed, but does not decode again: %v", d.Source, err)
			}
			if o.Source != d.Source || o.GetAPIVersion() != d.APIVersion || o.GetKind() != d.Kind || o.GetName() != d.Name || o.GetNamespace() != d.Namespace {
				t.Fatalf("%s: the doc says %s %s %s/%s, its object %s %s %s/%s", d.Source, d.APIVersion, d.Kind, d.Namespace, d.Name,
					o.GetAPIVersion(), o.GetKind(), o.GetNamespace(), o.GetName())
			}
			if o.Source.File != "fuzz.yaml" || o.Source.Doc < lastDoc || o.Source.Line < 1 {
				t.Fatalf("bad source %+v after document %d", o.Source, lastDoc)
			}
			lastDoc = o.Source.Doc
			if o.GetAPIVersion() == "" || o.GetKind() == "" {
				t.Fatalf("%s: object without apiVersion/kind loaded", o.Source)
			}
			if o.GetName() == "" && !(o.GetAPIVersion() == "kapp.k14s.io/v1alpha1" && o.GetKind() == "Config") {
				t.Fatalf("%s: object without a name loaded", o.Source)
			}
			// Later stages deep-copy and re-encode every object.
			if _, err := o.DeepCopy().MarshalJSON(); err != nil {
				t.Fatalf("%s: loaded object does not encode: %v", o.Source, err)
			}
		}
	})
}
