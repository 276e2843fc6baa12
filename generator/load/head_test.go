package load

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// headDoc reads what fullDoc reads, for every document it takes: the same Docs (identity, source,
// JSON) and the same errors. The fixtures' documents are all its own (none is a List), so the
// fast path is the one the captured inputs take.
func TestHeadDocAsFullDoc(t *testing.T) {
	files, err := filepath.Glob("../../fixtures/*/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var docs [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		chunks, _ := splitDocs(data)
		for _, c := range chunks {
			js, err := toJSON(data[c.begin:c.end], 1, MaxFileSize)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if string(js) != "null" {
				docs = append(docs, js)
			}
		}
	}
	taken := 0
	for _, js := range docs {
		if _, ok := agree(t, js); ok {
			taken++
		}
	}
	if taken != len(docs) || taken < 200 {
		t.Errorf("headDoc read %d of the fixtures' %d documents", taken, len(docs))
	}

	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		yaml string
		head bool // headDoc takes it
	}{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns, uid: u}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, resourceVersion: null, uid: null}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, resourceVersion: \"1\"}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, managedFields: []}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, managedFields: null}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, managedFields: [{manager: m}]}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, managedFields: {x: 1}}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: x\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: null\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\n", true},
		{"apiVersion: 1\nkind: true\nmetadata: {name: 2, namespace: [x]}\n", true},
		{"kind: ConfigMap\nmetadata: {name: a}\n", true},
		{"apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n", true},
		{"apiVersion: kapp.k14s.io/v1alpha1\nkind: Other\nmetadata: {name: a}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"a\\\"b\\\\\", labels: {\"k\\\\\": \"v\\\"}\"}}\ndata: {\"}\": \"{[\\\"\"}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {kapp.k14s.io/config: \"\"}}\ndata: {config.yml: \"apiVersion: kapp.k14s.io/v1alpha1\\nkind: Config\\n\"}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {kapp.k14s.io/config: \"\"}}\ndata: {config.yml: \"a: &a [x, x]\\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\\n\"}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {kapp.k14s.io/config: \"\"}}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: x}\ndata: {config.yml: 1}\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nspec: " + nest(510) + "\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nspec: " + nest(511) + "\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nspec: " + nest(512) + "\n", false},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nspec: " + nest(513) + "\n", false},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nspec: [" + nest(511) + ", 1]\n", false},
		{"apiVersion: v1\nkind: ConfigMapList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n", false},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nitems: null\n", false},
		{"[a]\n", false},
		{"a\n", false},
		{"null\n", false},
	} {
		js, err := toJSON([]byte(tc.yaml), 1, MaxFileSize)
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if err, ok := agree(t, js); ok != tc.head {
			t.Errorf("%.80q: headDoc took it %v, want %v (error %v)", tc.yaml, ok, tc.head, err)
		}
	}
	// JSON json.Marshal does not write: an escaped key is left to fullDoc
	if _, ok := agree(t, []byte(`{"apiVersion":"v1","ki\u006ed":"ConfigMap","metadata":{"name":"a"}}`)); ok {
		t.Error("headDoc read a key written with an escape")
	}
	if _, ok := agree(t, []byte(`{ "apiVersion" : "v1" , "kind":"ConfigMap", "metadata" : { "name" : "a" , "managedFields" : [ ] } }`)); !ok {
		t.Error("headDoc refused JSON with white space")
	}
}

// agree reads js with headDoc and fullDoc and fails the test when headDoc takes it and they
// disagree; it returns headDoc's error and whether it took js.
func agree(t *testing.T, js []byte) (error, bool) {
	t.Helper()
	src := Source{File: "f.yaml", Doc: 1, Line: 1}
	head, ok, herr := headDoc(js, src, nil)
	full, _, ferr := fullDoc(js, src, nil)
	if !ok {
		return herr, false
	}
	if (herr == nil) != (ferr == nil) || herr != nil && herr.Error() != ferr.Error() {
		t.Errorf("%.200s: headDoc error %v, fullDoc error %v", js, herr, ferr)
	}
	if !reflect.DeepEqual(head, full) {
		t.Errorf("%.200s: headDoc read\n%+v\nfullDoc\n%+v", js, head, full)
	}
	return herr, true
}
