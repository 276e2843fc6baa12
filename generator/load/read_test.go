package load

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"

func obj(name string) string { return strings.Replace(cm, "%s", name, 1) }

// item is obj as an item of a kind: List.
func item(name string) string {
	return "- " + strings.TrimSuffix(strings.ReplaceAll(obj(name), "\n", "\n  "), "  ")
}

// TestBadInput: every input error names the file, the document, the line where that document
// starts (a line of the file) and, where there is one, the field.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"invalid YAML in 2nd document", obj("a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b\n",
			// the document starts at the separator on line 5; the YAML error is on line 8 of the file
			"in.yaml: document 2 (line 5): invalid YAML: yaml: line 8: did not find expected ',' or '}'"},
		{"document is a list", obj("a") + "---\n- a\n- b\n",
			"in.yaml: document 2 (line 5): not a Kubernetes object: the document is a list (a YAML sequence or JSON array), not a mapping: put the objects under items of a kind: List (apiVersion: v1, kind: List, items: [...]), or give each its own document, separated by ---"},
		{"document is a scalar", "just a string\n",
			"in.yaml: document 1 (line 1): not a Kubernetes object: the document is a string, not a mapping"},
		{"missing apiVersion", obj("a") + "---\nkind: ConfigMap\nmetadata: {name: b}\n",
			"in.yaml: document 2 (line 5): field apiVersion: missing: not a Kubernetes object"},
		{"missing kind", "apiVersion: v1\nmetadata: {name: b}\n",
			"in.yaml: document 1 (line 1): field kind: missing: not a Kubernetes object"},
		{"missing metadata.name", obj("a") + "---\n" + obj("b") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: x}\n",
			"in.yaml: document 3 (line 10): field metadata.name: missing"},
		{"kapp's apiVersion with another kind", obj("a") + "---\napiVersion: kapp.k14s.io/v1alpha1\nkind: Confg\nrebaseRules: []\n",
			`in.yaml: document 2 (line 5): field kind: "Confg": kapp reads every kapp.k14s.io/v1alpha1 document as a Config and refuses any other kind (want Config)`},
		{"empty metadata.name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ''}\n",
			"in.yaml: document 1 (line 1): field metadata.name: missing"},
		{"non-UTF-8 in 1st document", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \xff\xfe}\n",
			"in.yaml: document 1 (line 1): not UTF-8 text"},
		// The error must point at the document holding the bad bytes, not always at document 1.
		{"non-UTF-8 in 2nd document", obj("a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: \xc3\x28}\n",
			"in.yaml: document 2 (line 5): not UTF-8 text"},
		{"kind List item without name", "apiVersion: v1\nkind: List\nitems:\n" + item("a") + "- apiVersion: v1\n  kind: Secret\n  metadata: {}\n",
			"in.yaml: document 1 (line 1), item 2: field metadata.name: missing"},
		{"kind List item not a mapping", obj("a") + "---\napiVersion: v1\nkind: ConfigMapList\nitems: [3]\n",
			"in.yaml: document 2 (line 5), item 1: not a Kubernetes object: the item is not a mapping"},
		{"kind List items not a list", "apiVersion: v1\nkind: List\nitems: {a: b}\n",
			"in.yaml: document 1 (line 1): field items: expected a list"},
		{"comment-only documents are not counted", "# header\n---\n# nothing here\n---\napiVersion: v1\nmetadata: {name: a}\n",
			"in.yaml: document 1 (line 4): field kind: missing: not a Kubernetes object"},
		{"invalid JSON", "{\"apiVersion\": \"v1\",\n \"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"a\"\n",
			"in.yaml: document 1 (line 1): invalid YAML: yaml: line 3: did not find expected ',' or '}'"},
		{"JSON array", `[{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}]`,
			"in.yaml: document 1 (line 1): not a Kubernetes object: the document is a list (a YAML sequence or JSON array), not a mapping: put the objects under items of a kind: List (apiVersion: v1, kind: List, items: [...]), or give each its own document, separated by ---"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Bytes("in.yaml", []byte(tc.data))
			if err == nil {
				t.Fatalf("no error; got %d objects", len(objs))
			}
			if err.Error() != tc.want {
				t.Errorf("error:\n got: %s\nwant: %s", err, tc.want)
			}
		})
	}
}

func TestGoodInput(t *testing.T) {
	type loc struct {
		name      string
		doc, line int
		item      int
	}
	for _, tc := range []struct {
		name, data string
		want       []loc
	}{
		{"multi-document with comments and empty documents",
			"# leading comment\n---\n" + obj("a") + "--- # separator comment\n# only a comment\n\n---\n---\n" + obj("b"),
			[]loc{{"a", 1, 2, 0}, {"b", 2, 11, 0}}},
		{"kind List expands with item indexes",
			obj("a") + "---\napiVersion: v1\nkind: List\nitems:\n" + item("b") + item("c"),
			[]loc{{"a", 1, 1, 0}, {"b", 2, 5, 1}, {"c", 2, 5, 2}}},
		{"JSON", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j", "labels": {"a": "1"}}}`,
			[]loc{{"j", 1, 1, 0}}},
		{"kapp Config needs no name", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n",
			[]loc{{"", 1, 1, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Bytes("in.yaml", []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			var got []loc
			for _, o := range objs {
				if o.Source.File != "in.yaml" {
					t.Errorf("%s: file %q", o.GetName(), o.Source.File)
				}
				got = append(got, loc{o.GetName(), o.Source.Doc, o.Source.Line, o.Source.Item})
			}
			if !equal(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pathsWithin runs Paths, failing the test instead of hanging.
func pathsWithin(t *testing.T, paths []string) ([]Object, error) {
	t.Helper()
	type result struct {
		objs []Object
		err  error
	}
	done := make(chan result, 1)
	go func() {
		objs, err := Paths(paths, NewReader(strings.NewReader("")))
		done <- result{objs, err}
	}()
	select {
	case r := <-done:
		return r.objs, r.err
	case <-time.After(30 * time.Second):
		t.Fatalf("Paths(%v) did not return within 30s", paths)
		return nil, nil
	}
}

func TestDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "b.yaml"), obj("b1")+"---\n"+obj("b2"))
	write(t, filepath.Join(dir, "a.yml"), obj("a"))
	write(t, filepath.Join(dir, "sub", "z", "c.yaml"), obj("c"))
	write(t, filepath.Join(dir, "sub", "d.yaml"), obj("d"))
	write(t, filepath.Join(dir, "e.json"), `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "json"}}`)
	write(t, filepath.Join(dir, "notes.txt"), "not yaml at all: [")
	write(t, filepath.Join(dir, "yaml"), "no extension: [")
	// symlink loops: to the directory itself, to its parent, and a link to itself
	for link, target := range map[string]string{"loop.yaml": ".", filepath.Join("sub", "up"): "..", "self.yaml": "self.yaml"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := pathsWithin(t, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		rel, _ := filepath.Rel(dir, o.Source.File)
		got = append(got, rel+":"+o.GetName())
	}
	// kapp -f reads a directory's .json files too (fileResourcesAllowedExts): a rule there applies
	want := []string{"a.yml:a", "b.yaml:b1", "b.yaml:b2", "e.json:json", "sub/d.yaml:d", "sub/z/c.yaml:c"}
	if !equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	_, err := pathsWithin(t, []string{missing})
	if want := "reading " + missing + ": stat " + missing + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("missing file: got %v, want %s", err, want)
	}

	if os.Geteuid() == 0 {
		t.Log("running as root: file permissions do not stop reads, skipping the unreadable file")
		return
	}
	locked := filepath.Join(dir, "locked.yaml")
	write(t, locked, obj("a"))
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	_, err = pathsWithin(t, []string{locked})
	if want := "reading " + locked + ": open " + locked + ": permission denied"; err == nil || err.Error() != want {
		t.Errorf("unreadable file: got %v, want %s", err, want)
	}
}

// TestAliasBomb: a "billion laughs" document must fail, not exhaust memory.
func TestAliasBomb(t *testing.T) {
	bomb := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n" +
		"a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += n + ": &" + n + " [*" + prev + strings.Repeat(", *"+prev, 8) + "]\n"
		prev = n
	}
	bomb += "data: {x: *" + prev + "}\n"
	path := filepath.Join(t.TempDir(), "bomb.yaml")
	write(t, path, obj("ok")+"---\n"+bomb)
	_, err := pathsWithin(t, []string{path})
	if want := path + ": document 2 (line 5): " + errExpansion().Error(); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// A Doc decodes to exactly the object parsing produced, List items included (their bytes are
// cut from the list's JSON, not re-encoded: 1.0 stays a float), and gets the namespace pairing
// sets on a Doc whose object has none.
func TestDocDecodesToWhatWasParsed(t *testing.T) {
	data := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: example.com/v1, kind: W, metadata: {name: a}, spec: {r: 1.0, n: 2, s: \"x\"}}\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: ns}}\n"
	docs, err := ParseDocs("list.yaml", []byte(data))
	if err != nil || len(docs) != 2 {
		t.Fatalf("%d docs: %v", len(docs), err)
	}
	var whole map[string]any
	if err := utiljson.Unmarshal(mustJSON(t, data), &whole); err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		o, err := d.Object()
		if err != nil {
			t.Fatal(err)
		}
		if want := whole["items"].([]any)[i]; !reflect.DeepEqual(o.Object, want) {
			t.Errorf("item %d decodes to %#v, parsed %#v", i+1, o.Object, want)
		}
		if d.Source.Item != i+1 {
			t.Errorf("item %d: source %+v", i+1, d.Source)
		}
	}
	docs[0].Namespace = "default"
	if o, _ := docs[0].Object(); o.GetNamespace() != "default" {
		t.Errorf("namespace not set: %q", o.GetNamespace())
	}
}

func mustJSON(t *testing.T, y string) []byte {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestDocsOfAKindDecodeToWhatWasParsed: documents read together are compressed against an earlier
// one of their kind (a dictionary) and still decode to exactly what parsing produced, in files
// read on several workers, List items and documents of a kind read once included; the fleet-like
// files take less space than compressed alone.
func TestDocsOfAKindDecodeToWhatWasParsed(t *testing.T) {
	dir := t.TempDir()
	var want []map[string]any
	for f := range 20 {
		var b strings.Builder
		for i := range 3 {
			fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-%d-%d, labels: {app: web}}\n"+
				"spec: {replicas: %d, template: {spec: {containers: [{name: web, image: nginx:1.%d, ports: [{containerPort: 80}], resources: {limits: {cpu: 0.5}}}]}}}\n", f, i, i, f)
		}
		if f == 7 {
			b.WriteString("---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: once}, data: {r: \"1.0\"}}\n")
		}
		write(t, filepath.Join(dir, fmt.Sprintf("f%02d.yaml", f)), b.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "---\n")[1:] {
			var m map[string]any
			if err := utiljson.Unmarshal(mustJSON(t, doc), &m); err != nil {
				t.Fatal(err)
			}
			if items, ok := m["items"].([]any); ok {
				for _, it := range items {
					want = append(want, it.(map[string]any))
				}
				continue
			}
			want = append(want, m)
		}
	}
	docs, err := Docs([]string{dir}, nil)
	if err != nil || len(docs) != len(want) {
		t.Fatalf("%d docs, want %d: %v", len(docs), len(want), err)
	}
	withDict, alone := 0, 0
	for i, d := range docs {
		o, err := d.Object()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(o.Object, want[i]) {
			t.Errorf("%s decodes to %#v, parsed %#v", d.Source, o.Object, want[i])
		}
		withDict += len(d.json)
		js, _ := json.Marshal(o.Object)
		alone += len(compress(js))
	}
	if withDict*2 > alone {
		t.Errorf("the Docs take %d bytes compressed, %d compressed alone: not compressed against each other", withDict, alone)
	}
}
