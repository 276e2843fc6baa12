package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Doc is one object held compactly: the JSON it was parsed from, where it came from, and the
// identity pairing needs. Stages decode a Doc (Object) only while they work on it.
//
// Performance: decoded into maps, a fleet's objects take about 9 times the size of their YAML;
// their JSON about as much as the YAML, and compressed with s2 (which decompresses at GB/s) half
// that. Holding every input decoded made peak memory ~22x the input at 10,000 pairs; holding Docs
// leaves the compressed JSON plus what the workers decode at a time. Documents read together are
// compressed against an earlier one of their kind (see dictionaries).
type Doc struct {
	Source     Source
	APIVersion string
	Kind       string
	// Namespace is the object's namespace. Setting it on a Doc whose object has none gives the
	// decoded object that namespace (pairing does this for namespaced desired objects).
	Namespace string
	Name      string
	// What only the API server writes, which objects read from a cluster carry and manifests do
	// not: metadata.managedFields (kubectl get leaves them out without --show-managed-fields),
	// and metadata.uid or resourceVersion (FromServer).
	ManagedFields, FromServer bool
	// ConfigLabelled: metadata.labels holds kapp.k14s.io/config, so kapp reads the object as a
	// Config too (IsLabelledConfig).
	ConfigLabelled bool
	json           []byte   // s2-compressed, exactly the JSON parsed: decoding it again gives the same values
	dict           *s2.Dict // what json was compressed against; nil: none
}

// newDoc holds js, the JSON of m; managed says whether m's metadata.managedFields has entries
// (hasManagedFields: m may hold only what newDoc reads of the object).
func newDoc(js []byte, m map[string]any, managed bool, src Source, dicts *dictionaries) Doc {
	u := unstructured.Unstructured{Object: m}
	d := Doc{Source: src, APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
	if meta, ok := m["metadata"].(map[string]any); ok {
		d.ManagedFields, d.FromServer = managed, meta["uid"] != nil || meta["resourceVersion"] != nil
		labels, _ := meta["labels"].(map[string]any)
		_, d.ConfigLabelled = labels[kappconv.ConfigLabel]
	}
	d.json, d.dict = dicts.compress(d.APIVersion+" "+d.Kind, js)
	return d
}

// hasManagedFields reports whether the object m's metadata.managedFields has entries.
func hasManagedFields(m map[string]any) bool {
	meta, _ := m["metadata"].(map[string]any)
	mf, _ := meta["managedFields"].([]any)
	return len(mf) > 0
}

// dictionaries compress the documents of one read, each against the first document of its
// apiVersion and kind (an s2 dictionary). Performance: a fleet's objects of one kind differ in a
// few values; compressed against another of their kind they take a fourteenth of the space s2
// alone gives them (fleet 10,000: 1.4 MB instead of 19.6 MB of Docs; the fixture mix 4.8 MB
// instead of 16.6 MB), and decompress as fast. Which document of a kind comes first depends on
// which file a worker reads first: it changes the compressed size only.
type dictionaries struct {
	mu     sync.Mutex
	byKind map[string]*dictionary
}

// dictionary is a kind's: made from the first document when a second one comes (a kind of one
// document costs no dictionary).
type dictionary struct {
	first []byte
	dict  *s2.Dict
}

func newDictionaries() *dictionaries { return &dictionaries{byKind: map[string]*dictionary{}} }

// compress returns js compressed, and the dictionary it was compressed against (nil: none).
func (ds *dictionaries) compress(kind string, js []byte) ([]byte, *s2.Dict) {
	if ds == nil {
		return compress(js), nil
	}
	ds.mu.Lock()
	e := ds.byKind[kind]
	switch {
	case e == nil:
		ds.byKind[kind] = &dictionary{first: bytes.Clone(js)}
	case e.first != nil:
		e.dict, e.first = s2.MakeDict(e.first, nil), nil // (nil when shorter than s2.MinDictSize)
	}
	var dict *s2.Dict
	if e != nil {
		dict = e.dict
	}
	ds.mu.Unlock()
	if dict == nil {
		return compress(js), nil
	}
	return bytes.Clone(dict.Encode(nil, js)), dict
}

// compress returns js compressed, in a slice of its own size (s2.Encode returns part of a buffer
// of the worst-case size, which would keep all of it alive).
func compress(js []byte) []byte {
	return bytes.Clone(s2.Encode(nil, js))
}

// IsKappConfig reports whether apiVersion and kind are those of a kapp Config document, which
// configures kapp rather than being a resource.
func IsKappConfig(apiVersion, kind string) bool {
	return apiVersion == kappconv.ConfigAPIVersion && kind == kappconv.ConfigKind
}

// IsLabelledConfig reports whether kapp reads o as a Config besides applying it: a resource labelled
// kapp.k14s.io/config (any value), whose data."config.yml" kapp parses as one Config
// (config/conf.go NewConfFromResources; kapp refuses such a resource unless it is a v1 ConfigMap).
func IsLabelledConfig(o Object) bool {
	_, labelled := o.GetLabels()[kappconv.ConfigLabel]
	return labelled
}

// GroupKind is the Doc's API group and kind.
func (d Doc) GroupKind() schema.GroupKind {
	gv, _ := schema.ParseGroupVersion(d.APIVersion)
	return schema.GroupKind{Group: gv.Group, Kind: d.Kind}
}

// Object decodes the Doc into a new object the caller owns.
func (d Doc) Object() (Object, error) {
	var m map[string]any
	js, err := d.decompress()
	if err == nil {
		err = utiljson.Unmarshal(js, &m)
	}
	if err != nil || m == nil {
		// The bytes were parsed once already: this is a bug, not an input error.
		return Object{}, fmt.Errorf("%s: decoding again: %v", d.Source, err)
	}
	u := &unstructured.Unstructured{Object: m}
	if d.Namespace != "" && u.GetNamespace() == "" {
		u.SetNamespace(d.Namespace)
	}
	return Object{Unstructured: u, Source: d.Source}, nil
}

// Field decodes the value at the path of map keys in the Doc's object alone: what Object's
// object holds there (found is false when a key is missing or a value on the way is not a map).
// The Doc's namespace is not applied: ask Namespace.
//
// Performance: a stage that reads one field of many documents (the autoscalers' targets, before
// any pair is classified) decoded each whole, the largest part of it the live object's status
// and managedFields it never read.
func (d Doc) Field(keys ...string) (v any, found bool, err error) {
	js, err := d.decompress()
	if err != nil {
		return nil, false, fmt.Errorf("%s: decoding again: %v", d.Source, err)
	}
	at := js
	for _, k := range keys {
		if len(at) == 0 || at[0] != '{' {
			return nil, false, nil
		}
		var val []byte
		if _, ok := members(at, func(key string, v []byte) {
			if key == k {
				val = v // the last, as decoding keeps it
			}
		}); !ok {
			return d.fieldOfObject(keys)
		}
		if val == nil {
			return nil, false, nil
		}
		at = val
	}
	if v, ok := decode(at); ok {
		return v, true, nil
	}
	return d.fieldOfObject(keys)
}

// fieldOfObject is Field for JSON the scan does not read (a key written with an escape).
func (d Doc) fieldOfObject(keys []string) (any, bool, error) {
	o, err := d.Object()
	if err != nil {
		return nil, false, err
	}
	var v any = o.Object
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		if v, ok = m[k]; !ok {
			return nil, false, nil
		}
	}
	return v, true, nil
}

func (d Doc) decompress() ([]byte, error) {
	if d.dict != nil {
		return d.dict.Decode(nil, d.json)
	}
	return s2.Decode(nil, d.json)
}

// Objects decodes every Doc: for inputs that are small (CRDs, kapp Configs, rule files).
func Objects(docs []Doc) ([]Object, error) {
	out := make([]Object, len(docs))
	for i, d := range docs {
		var err error
		if out[i], err = d.Object(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Redacted is what rebasegen capture writes in place of every Secret value, in the live object and
// in kapp's copy of what it applied: valid base64 (of "rebasegen-redacted"). Read back, such a
// value is unknown (pair.Build gives it the manifest's value).
const Redacted = "cmViYXNlZ2VuLXJlZGFjdGVk"

// NewDoc encodes an object that was not read from YAML (an edited copy, a test's object).
func NewDoc(o Object) (Doc, error) {
	js, err := json.Marshal(o.Object)
	if err != nil {
		return Doc{}, fmt.Errorf("%s: encoding: %w", o.Source, err)
	}
	return newDoc(js, o.Object, hasManagedFields(o.Object), o.Source, nil), nil
}
