package main

// The corpus: the desired objects of fixtures/ and the strategy cases, and an object of every
// kind the scheme knows with each nested struct and list present.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// object is one object of the corpus.
type object struct {
	name string
	u    *unstructured.Unstructured // a fixture's document; nil for a filled object
	gvk  schema.GroupVersionKind
}

// Document is a desired object of fixtures/, named by its file and document.
type Document struct {
	Name   string         `json:"name"`
	Object map[string]any `json:"object"`
}

// fixtureDocuments are the desired objects of fixtures/ and the strategy cases, which the
// reference run copies into corpusFile: the corpus stays what the data was made from when
// fixtures change.
func fixtureDocuments() ([]Document, error) {
	files, err := filepath.Glob("fixtures/*/desired.yaml")
	if err != nil {
		return nil, err
	}
	files = append(files, strategyCases)
	var out []Document
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for i := 1; ; i++ {
			doc, err := r.Read()
			if err != nil {
				break
			}
			var m map[string]any
			if err := yaml.Unmarshal(doc, &m); err != nil || m == nil {
				continue
			}
			out = append(out, Document{Name: fmt.Sprintf("%s#%d", f, i), Object: m})
		}
	}
	return out, nil
}

// corpus is every document of corpusFile and a filled object of every kind the schemes know.
func corpus() ([]object, error) {
	data, err := os.ReadFile(corpusFile)
	if err != nil {
		return nil, err
	}
	var docs []Document
	if err := json.Unmarshal(data, &docs); err != nil {
		return nil, fmt.Errorf("%s: %w", corpusFile, err)
	}
	var out []object
	for _, d := range docs {
		u := &unstructured.Unstructured{Object: d.Object}
		out = append(out, object{name: d.Name, u: u, gvk: u.GroupVersionKind()})
	}
	for _, s := range schemes() {
		for gvk := range s.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") || !isResource(s, gvk) {
				continue
			}
			out = append(out, object{name: "filled " + gvk.GroupVersion().String() + " " + gvk.Kind, gvk: gvk})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// isResource: a kind with metadata (not an options or event type).
func isResource(s *runtime.Scheme, gvk schema.GroupVersionKind) bool {
	t := s.AllKnownTypes()[gvk]
	f, ok := t.FieldByName("ObjectMeta")
	return ok && f.Anonymous
}

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// fill makes every nested struct and list of v present, one item per list, leaving scalars and
// maps empty: each defaulting function of the kind's nested types then runs. Recursive types are
// filled once along a path; metadata and status are left out.
func fill(v reflect.Value, depth int, onPath map[reflect.Type]bool) {
	t := v.Type()
	switch v.Kind() {
	case reflect.Struct:
		if leafStruct(t) || onPath[t] || depth > 12 {
			return
		}
		onPath[t] = true
		defer delete(onPath, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" || depth == 0 && (f.Name == "ObjectMeta" || f.Name == "TypeMeta" || f.Name == "Status") {
				continue
			}
			fill(v.Field(i), depth+1, onPath)
		}
	case reflect.Pointer:
		if e := t.Elem(); e.Kind() == reflect.Struct && !leafStruct(e) && !onPath[e] {
			v.Set(reflect.New(e))
			fill(v.Elem(), depth+1, onPath)
		}
	case reflect.Slice:
		e := t.Elem()
		if e.Kind() == reflect.Pointer {
			e = e.Elem()
		}
		if e.Kind() == reflect.Struct && !leafStruct(e) && !onPath[e] {
			v.Set(reflect.MakeSlice(t, 1, 1))
			fill(v.Index(0), depth+1, onPath)
		}
	}
}

// leafStruct: a struct with a JSON form of its own (Quantity, Time, IntOrString, RawExtension).
func leafStruct(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler)
}
