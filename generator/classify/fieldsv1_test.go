package classify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/load"
)

// fromJSON is the oracle: structured-merge-diff's own reading of fieldsV1's JSON.
func fromJSON(t *testing.T, fieldsV1 map[string]any) (*fieldpath.Set, error) {
	t.Helper()
	js, err := json.Marshal(fieldsV1)
	if err != nil {
		t.Fatal(err)
	}
	s := fieldpath.NewSet()
	return s, s.FromJSON(bytes.NewReader(js))
}

// readFields reads every fixture's managedFields as fieldpath.Set.FromJSON reads their JSON, and
// gives up (false) wherever FromJSON refuses the JSON or might read it otherwise.
func TestReadFieldsAsFromJSON(t *testing.T) {
	files, err := filepath.Glob("../../fixtures/*/live.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	entries := 0
	names := fieldNames{} // one worker's, kept across every object as classification keeps it
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := load.Bytes(f, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			mf, _, _ := unstructured.NestedSlice(o.Object, "metadata", "managedFields")
			for i, e := range mf {
				fv, ok := e.(map[string]any)["fieldsV1"].(map[string]any)
				if !ok {
					continue
				}
				entries++
				want, err := fromJSON(t, fv)
				if err != nil {
					t.Fatalf("%s %s managedFields[%d]: %v", o.Source, o.GetName(), i, err)
				}
				got := fieldpath.NewSet()
				if !readFields(fv, got) || !got.Equals(want) {
					t.Errorf("%s %s managedFields[%d]: read\n%s\nwant\n%s", o.Source, o.GetName(), i, got, want)
				}
				if kept := fieldpath.NewSet(); !names.readFields(fv, kept) || !kept.Equals(want) {
					t.Errorf("%s %s managedFields[%d]: read with the names kept\n%s\nwant\n%s", o.Source, o.GetName(), i, kept, want)
				}
			}
		}
	}
	if entries < 100 {
		t.Fatalf("only %d managedFields entries in the fixtures", entries)
	}
	for _, tc := range []struct {
		name string
		json string
		ok   bool // false: readFields must give up
	}{
		{"empty", `{}`, true},
		{"member and children", `{"f:spec":{".":{},"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}}}`, true},
		{"unknown element types dropped", `{"x:future":{"f:a":{}},"f:a":{"y:z":{}},"f:b":{"y:z":{},"f:c":{}}}`, true},
		{"values and indexes", `{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}},"f:list":{"i:0":{},"i:1":{"f:x":{}}}}`, true},
		{"key too short", `{"f":{}}`, false},
		{"missing colon", `{"fx":{}}`, false},
		{"bad value element", `{"f:a":{"v:[":{}}}`, false},
		{"not a map", `{"f:a":1}`, false},
		{"null", `{"f:a":null}`, false},
		{"two keys for one element", `{"f:c":{"k:{\"a\":\"1\",\"b\":\"2\"}":{"f:x":{}},"k:{\"b\":\"2\",\"a\":\"1\"}":{"f:y":{}}}}`, false},
	} {
		var fv map[string]any
		if err := json.Unmarshal([]byte(tc.json), &fv); err != nil {
			t.Fatal(err)
		}
		got := fieldpath.NewSet()
		ok := readFields(fv, got)
		if kept := fieldpath.NewSet(); names.readFields(fv, kept) != ok || ok && !kept.Equals(got) {
			t.Errorf("%s: read otherwise with the names kept", tc.name)
		}
		if ok != tc.ok {
			t.Errorf("%s: readFields %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if ok {
			want, err := fromJSON(t, fv)
			if err != nil || !got.Equals(want) {
				t.Errorf("%s: read\n%s\nFromJSON (error %v)\n%s", tc.name, got, err, want)
			}
		}
	}
}

// A worker keeps the field names it parsed: reading the managedFields of a fleet's next object,
// which names the same fields, parses none of them again.
func TestFieldNamesKept(t *testing.T) {
	var fv map[string]any
	if err := json.Unmarshal([]byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:tier":{}},"f:annotations":{"f:note":{}}},
		"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`), &fv); err != nil {
		t.Fatal(err)
	}
	names := fieldNames{}
	names.readFields(fv, fieldpath.NewSet())
	read := func(n fieldNames) float64 {
		return testing.AllocsPerRun(20, func() {
			if !n.readFields(fv, fieldpath.NewSet()) {
				t.Fatal("not read")
			}
		})
	}
	if fresh, kept := read(nil), read(names); kept > fresh-10 {
		t.Errorf("reading with the names kept took %.0f allocations, parsing every name %.0f", kept, fresh)
	}
}
