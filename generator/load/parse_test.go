package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	yaml2 "go.yaml.in/yaml/v2"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// kappReads is the oracle: the objects kapp reads from data, with kapp's own functions
// (resources.FileResource.Resources: apimachinery's YAMLReader, then sigs.k8s.io/yaml), as
// JSON-decoded values; splitErr is the error of its document splitting alone.
func kappReads(data []byte) (objs []any, splitErr, err error) {
	if _, splitErr = ctlres.NewYAMLFile(ctlres.NewBytesSource(data)).Docs(); splitErr != nil {
		return nil, splitErr, splitErr
	}
	rs, err := ctlres.NewFileResource(ctlres.NewBytesSource(data)).Resources()
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rs {
		objs = append(objs, normalise(r.UnstructuredObject()))
	}
	return objs, nil, nil
}

// normalise decodes v's JSON as load decodes it (numbers as int64 or float64).
func normalise(v any) any {
	js, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := utiljson.Unmarshal(js, &out); err != nil {
		panic(err)
	}
	return out
}

// rebasegenReads is what ParseDocs reads from data, decoded like kappReads.
func rebasegenReads(data []byte) ([]any, error) {
	docs, err := ParseDocs("in.yaml", data)
	if err != nil {
		return nil, err
	}
	var objs []any
	for _, d := range docs {
		o, err := d.Object()
		if err != nil {
			return nil, err
		}
		objs = append(objs, normalise(o.Object))
	}
	return objs, nil
}

// kappDrops is the oracle of what kapp reads of data without a word: whether a document kapp's
// reader splits data into (kapp's own YAMLFile) holds more than the first YAML document, which is
// all sigs.k8s.io/yaml decodes of it. The parser sigs.k8s.io/yaml uses is asked for every
// document of each: anything after the first (a document, or content it cannot parse, as the
// second object of a JSON stream) is dropped by kapp. It returns the kapp document (from 1)
// where that happens, 0 when none does.
func kappDrops(data []byte) int {
	docs, err := ctlres.NewYAMLFile(ctlres.NewBytesSource(data)).Docs()
	if err != nil {
		return 0
	}
	for i, d := range docs {
		dec := yaml2.NewDecoder(bytes.NewReader(d))
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			continue // blank or comments only
		} else if err != nil {
			return 0 // kapp refuses the document
		}
		for {
			v = nil
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil || v != nil { // (an empty document drops nothing)
				return i + 1
			}
		}
	}
	return 0
}

// kubectlReads is the number of objects apimachinery's YAMLOrJSONDecoder (kubectl's reader of
// -f files) decodes from data before its end or an error: every object of a JSON stream.
func kubectlReads(data []byte) int {
	dec := kyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	n := 0
	// (bounded: a decoder that switched from JSON to YAML can return the same empty document
	// again and again)
	for range len(data) + 2 {
		var v any
		if dec.Decode(&v) != nil {
			return n
		}
		// counted as kapp counts: a list's items, an empty mapping as nothing
		if m, _ := v.(map[string]any); len(m) > 0 {
			if items, isList := m["items"].([]any); isList {
				n += len(items)
			} else {
				n++
			}
		}
	}
	return n
}

// checkAsKapp: data splits into documents as kapp splits it. kapp refusing the separators and
// rebasegen refusing them go together; where both read data, they read the same objects. Where
// kapp would drop content (kappDrops; and where kubectl's reader finds more objects than kapp
// reads, as in a JSON stream), rebasegen refuses data, and it refuses nothing else as dropped.
func checkAsKapp(t *testing.T, data []byte) (ours, kapps error) {
	t.Helper()
	want, splitErr, kerr := kappReads(data)
	got, err := rebasegenReads(data)
	sepErr := err != nil && strings.Contains(err.Error(), "invalid document separator")
	dropErr := err != nil && strings.Contains(err.Error(), "without a word; separate")
	drops := kappDrops(data)
	switch {
	case splitErr != nil && !sepErr:
		t.Fatalf("%q: kapp refuses the separators (%v), rebasegen: %v", data, splitErr, err)
	case splitErr == nil && sepErr:
		t.Fatalf("%q: rebasegen refuses the separators (%v), kapp does not", data, err)
	case drops > 0 && err == nil:
		t.Fatalf("%q: kapp drops content of its document %d, rebasegen reads %d objects without an error", data, drops, len(got))
	case drops == 0 && dropErr:
		t.Fatalf("%q: kapp drops nothing, rebasegen refuses: %v", data, err)
	case kerr == nil && err == nil && kubectlReads(data) > len(want):
		t.Fatalf("%q: kubectl's reader finds %d objects, kapp reads %d, rebasegen reads them without an error", data, kubectlReads(data), len(want))
	case err == nil && kerr == nil && !reflect.DeepEqual(got, want):
		t.Fatalf("%q: rebasegen reads %d objects, kapp %d:\n%v\n%v", data, len(got), len(want), got, want)
	}
	var le *Error
	if err != nil && (!errors.As(err, &le) || le.Source.Doc < 1 || le.Source.Line < 1) {
		t.Fatalf("%q: error does not locate the input: %v", data, err)
	}
	return err, kerr
}

// FuzzSplitAsKapp: any bytes split into the documents kapp reads (checkAsKapp).
func FuzzSplitAsKapp(f *testing.F) {
	for _, data := range fixtureFiles(f) {
		f.Add(data)
		f.Add([]byte(strings.ReplaceAll(string(data), "\n", "\r\n")))
	}
	for _, s := range []string{
		"", "---", "---\n", "--- \t\n", "---#x\n", "--- # c\n---x", "----\n", "--- \v\n", "--- \f\n", "---\r\n",
		"a\n---  é\n", "a: 1\n  ---\n", "\n---\n\n---", "--- \xff\n", "# only\n  # comments\n\n", " \u00a0\n", "x\n# c",
		"---\t#\n--- a\n", "a\r\n---\r\n# c\r\n", "---\u00a0\n", "---\u0085x\n", "\ufeff---\na: 1\n---\nb: 2\n",
		"---\n...\na: 1\n", "a: 1\n---\n---\n...\nb: 2\n", "a: 1\r\r\n---\r\nb: |\r\n  x\r\n  y\r\n",
		obj("a") + "---\r\n" + obj("b") + "---\r" + "\n" + obj("c"),
		obj("a") + "data:\n  k: " + strings.Repeat("v", kappReadBuffer-len("data:\n  k: ")-1) + "\n",
		obj("a") + "data: {k: " + strings.Repeat("v", 2*kappReadBuffer-len("data: {k: }")) + "}",
		obj("a") + "data: {k: " + strings.Repeat("v", 2*kappReadBuffer-len("data: {k: }")-1) + "}\r",
		jsonObj("a") + jsonObj("b"), jsonObj("a") + "\n" + jsonObj("b") + "\n", "\ufeff" + jsonObj("a") + " # c\n" + jsonObj("b"),
		"[" + jsonObj("a") + "]" + jsonObj("b"), "{a: 1}\n{b: 2}\n", "!!map {a: 1}\n{b: 2}\n", "&x {a: 1}\n...\n", jsonObj("a") + "#c\n",
		obj("a") + "...\n" + obj("b"), obj("a") + "...\n---\n" + obj("b"), obj("a") + "...\n# c\n", obj("a") + "...\n...\n",
		obj("a") + "data:\n  k: |\n    ...\n", "a: |\n...\n", "...x: 1\n", obj("a") + "...\r\n" + obj("b"),
	} {
		f.Add([]byte(s))
	}
	for _, s := range itemsCarriers {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAsKapp(t, data) })
}

// itemsCarriers are documents of kinds other than *List holding a top-level items list, which
// kapp reads as their items alone, each with the number of objects kapp reads.
var itemsCarriers = map[string]string{
	"config": "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\nitems:\n" +
		"- apiVersion: kapp.k14s.io/v1alpha1\n  kind: Config\n  rebaseRules:\n  - {type: copy, sources: [existing, new], path: [spec], resourceMatchers: [{allMatcher: {}}]}\n",
	"configmap": obj("carrier") + "items:\n" + item("a") + item("b"),
	"empty":     obj("carrier") + "items: []\n",
	"not-list":  obj("carrier") + "items: {a: b}\n",
	"null":      obj("carrier") + "items: null\n",
}

// TestItemsExpandAsKapp: a document of any kind whose items is a list is read as kapp reads it,
// its items instead of itself (probe6 finding 4: a Config carried in another Config's items was in
// force in kapp, and never mutation-checked or linted); items that are no list leave the document
// as it is.
func TestItemsExpandAsKapp(t *testing.T) {
	want := map[string][]string{"config": {"Config"}, "configmap": {"a", "b"}, "empty": nil, "not-list": {"carrier"}, "null": {"carrier"}}
	for name, data := range itemsCarriers {
		if ours, kapps := checkAsKapp(t, []byte(data)); ours != nil || kapps != nil {
			t.Fatalf("%s: rebasegen: %v; kapp: %v", name, ours, kapps)
		}
		docs, _ := ParseDocs("in.yaml", []byte(data))
		var got []string
		for _, d := range docs {
			if d.Name == "" {
				got = append(got, d.Kind)
			} else {
				got = append(got, d.Name)
			}
		}
		if !reflect.DeepEqual(got, want[name]) {
			t.Errorf("%s: read %v, want %v", name, got, want[name])
		}
	}
}

// TestSplitAsKapp: files made of valid objects, written with every way kapp's reader accepts of
// ending lines and separating documents (CRLF, "---\r", white space and comments after "---",
// a byte order mark, blank and comment-only documents, repeated separators, no final newline),
// are read in full, and as the same objects as kapp reads them; what kapp refuses is refused (a
// separator with a control character opening a document: kapp's reader keeps it, and YAML
// refuses it). (The regression: a CRLF file was read as its first document only.)
func TestSplitAsKapp(t *testing.T) {
	seps := []string{"---", "--- ", "---\t", "--- # c", "---#c", "---\r", "--- \v", "---\f"}
	fill := []string{"", "# a comment\n", "\n", "  \n# c\n", "---\n", "--- # c\n"}
	r := rand.New(rand.NewPCG(24, 1))
	read := 0
	for i := range 500 {
		var b strings.Builder
		if r.IntN(8) == 0 {
			b.WriteString("\ufeff")
		}
		n := 1 + r.IntN(5)
		for j := range n {
			if j > 0 || r.IntN(3) == 0 {
				b.WriteString(seps[r.IntN(len(seps))] + "\n")
			}
			b.WriteString(fill[r.IntN(len(fill))])
			b.WriteString(obj(fmt.Sprintf("o%d", j)) + "data:\n  k: |\n    line one\n    line two\n")
			if r.IntN(4) == 0 {
				b.WriteString("---\n" + fill[r.IntN(len(fill))])
			}
		}
		data := b.String()
		if r.IntN(2) == 0 {
			data = strings.ReplaceAll(data, "\n", "\r\n")
		}
		if r.IntN(4) == 0 {
			data = strings.TrimRight(data, "\r\n")
		}
		ours, kapps := checkAsKapp(t, []byte(data))
		if (ours == nil) != (kapps == nil) {
			t.Fatalf("case %d: %q: rebasegen: %v; kapp: %v", i, data, ours, kapps)
		}
		if ours != nil {
			continue
		}
		read++
		if got, _ := rebasegenReads([]byte(data)); len(got) != n {
			t.Fatalf("case %d: %q: %d objects read, %d written", i, data, len(got), n)
		}
	}
	if read < 400 {
		t.Errorf("only %d files of 500 were read", read)
	}
}

// TestCRLFLineNumbers: errors in a CRLF file name the same document and lines as in the file
// with LF line endings.
func TestCRLFLineNumbers(t *testing.T) {
	for _, data := range []string{
		obj("a") + "---\n" + obj("b") + "data:\n  a: b\n  c: [d, e\n  f: g\n",
		obj("a") + "---\n" + obj("b") + "data: {}\nkind: Secret\n",
		"---\n" + obj("a") + "--- # c\n" + obj("b") + "data: {a: 1, a: 2}\n",
		obj("a") + "---\n" + obj("b") + "--- {x: 1}\n",
	} {
		_, lf := Bytes("in.yaml", []byte(data))
		_, crlf := Bytes("in.yaml", []byte(strings.ReplaceAll(data, "\n", "\r\n")))
		if lf == nil || crlf == nil || lf.Error() != crlf.Error() {
			t.Errorf("%q:\nLF:   %v\nCRLF: %v", data, lf, crlf)
		}
	}
}

// TestKappDropsLastLine: a last line kapp's reader would drop (see kappDropsLastLine) is an
// error, not read as kapp does not read it; the same line ending in a newline loads.
func TestKappDropsLastLine(t *testing.T) {
	long := obj("a") + "data: {k: " + strings.Repeat("v", 2*kappReadBuffer-len("data: {k: }")) + "}"
	if objs, _, _ := kappReads([]byte(long)); len(objs) != 1 || objs[0].(map[string]any)["data"] != nil {
		t.Fatalf("kapp's reader no longer drops the line: %v", objs)
	}
	_, err := Bytes("in.yaml", []byte(long))
	if want := "in.yaml: document 1 (line 5): the last line is 8192 bytes long with no newline after it"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s...", err, want)
	}
	if _, err := Bytes("in.yaml", []byte(long+"\n")); err != nil {
		t.Error(err)
	}
}

// jsonObj is obj as JSON on one line, as `jq -c` writes it.
func jsonObj(name string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`
}

// TestStreamsRefused: a file kapp reads part of without a word is refused with an error naming
// the file, the document and the line where the dropped content starts (newcomer5 F11: a JSON
// stream, and YAML documents separated by a document end marker "..." only, were read as their
// first object, exit 0): several JSON objects one after another (compact, one a line, as `jq -c`
// writes; indented, as concatenated `kubectl get -o json` outputs; CRLF; after a byte order mark),
// and YAML documents after "...". kapp's reading of each is checked first (checkAsKapp, kappDrops),
// and an end marker followed by --- or by nothing is read as kapp reads it.
func TestStreamsRefused(t *testing.T) {
	indented := func(name string) string {
		var v any
		if err := json.Unmarshal([]byte(jsonObj(name)), &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(v, "", "    ")
		return string(b) + "\n"
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"jq -c", jsonObj("a") + "\n" + jsonObj("b") + "\n" + jsonObj("c") + "\n",
			"in.yaml: document 1 (line 1): a second object starts at line 2 after the first one ends (a JSON stream"},
		{"kubectl get -o json, concatenated", indented("a") + indented("b"),
			"in.yaml: document 1 (line 1): a second object starts at line 8 after the first one ends"},
		{"same line", jsonObj("a") + " " + jsonObj("b") + "\n",
			"in.yaml: document 1 (line 1): a second object starts at line 1 after the first one ends"},
		{"CRLF, byte order mark", "\ufeff" + strings.ReplaceAll(indented("a")+indented("b"), "\n", "\r\n"),
			"in.yaml: document 1 (line 1): a second object starts at line 8 after the first one ends"},
		{"second document of the file", obj("a") + "---\n" + jsonObj("b") + "\n\n" + jsonObj("c") + "\n",
			"in.yaml: document 2 (line 5): a second object starts at line 8 after the first one ends"},
		{"flow YAML", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n{apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
			"in.yaml: document 1 (line 1): a second object starts at line 2"},
		{"end marker", obj("a") + "...\n" + obj("b"),
			"in.yaml: document 1 (line 1): content at line 6 follows a document end marker (...): kapp splits a file into documents at --- lines only"},
		{"end marker, CRLF", strings.ReplaceAll(obj("a")+"...\n"+obj("b"), "\n", "\r\n"),
			"in.yaml: document 1 (line 1): content at line 6 follows a document end marker (...)"},
		{"end marker, second document", obj("a") + "---\n" + obj("b") + "...\n# c\n\n" + obj("c"),
			"in.yaml: document 2 (line 5): content at line 13 follows a document end marker (...)"},
		{"empty document then content", "---\n...\n" + obj("a"),
			"in.yaml: document 1 (line 1): content at line 3 follows a document end marker (...)"},
	} {
		data := []byte(tc.data)
		if kappDrops(data) == 0 {
			t.Fatalf("%s: kapp reads all of %q", tc.name, data)
		}
		checkAsKapp(t, data)
		_, err := Bytes("in.yaml", data)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s...", tc.name, err, tc.want)
		}
	}
	for _, data := range []string{
		obj("a") + "...\n---\n" + obj("b"), obj("a") + "...\n", obj("a") + "...\n# c\n...\n", jsonObj("a") + "\n# c\n",
		"[" + jsonObj("a") + "]\n", "apiVersion: v1\nkind: List\nitems: [" + jsonObj("a") + ", " + jsonObj("b") + "]\n",
		obj("a") + "data:\n  k: |\n    ...\n    " + jsonObj("b") + "\n",
	} {
		if ours, kapps := checkAsKapp(t, []byte(data)); kappDrops([]byte(data)) > 0 || ours != nil && kapps == nil {
			t.Errorf("%q: rebasegen: %v; kapp: %v", data, ours, kapps)
		}
	}
}
