package load

import (
	"reflect"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Field's oracle is the document decoded whole (Object, what every stage reads) and walked key by
// key: Field must give exactly that value, integers as int64 too, or report it missing where the
// walk finds none.
func TestFieldIsTheDecodedObjectsValue(t *testing.T) {
	const doc = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  labels: {app: web, "a<b": "escaped by json.Marshal", kapp.k14s.io/config: ""}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 9007199254740993
  metrics: [{type: Resource, resource: {name: cpu}}]
  behavior: null
  text: "quote \" and {brace} [bracket] inside"
status: {currentReplicas: 3}
`
	docs, err := ParseDocs("f.yaml", []byte(doc))
	if err != nil || len(docs) != 1 {
		t.Fatalf("ParseDocs: %v, %d docs", err, len(docs))
	}
	o, err := docs[0].Object()
	if err != nil {
		t.Fatal(err)
	}
	whole := o.Object
	walk := func(keys []string) (any, bool) {
		var v any = whole
		for _, k := range keys {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		}
		return v, true
	}
	for _, path := range []string{
		"spec/scaleTargetRef", "spec/minReplicas", "spec/maxReplicas", "spec/metrics", "spec/behavior", "spec/text",
		"metadata/labels", "metadata/name", "status", "spec/missing", "spec/minReplicas/deeper", "nothing/at/all", "spec",
		"metadata/labels/a<b", "metadata/labels/kapp.k14s.io~1config", // a key JSON escapes: read by decoding the object
	} {
		keys := strings.Split(path, "/")
		for i := range keys {
			keys[i] = strings.ReplaceAll(keys[i], "~1", "/")
		}
		got, found, err := docs[0].Field(keys...)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want, wantFound := walk(keys)
		if found != wantFound || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v (found %v), want %#v (found %v)", path, got, found, want, wantFound)
		}
	}
}

// decode reads a JSON value as the decoder does (the oracle: k8s.io/apimachinery's util/json, as
// fullDoc reads documents), a plain string with two allocations (the string and its interface).
func TestDecodeAsTheDecoder(t *testing.T) {
	for _, js := range []string{`"web"`, `""`, `"apps/v1"`, `"caf\u00e9 ünïcode"`, `"tab\there"`, `"quote \" inside"`, `"back\\slash"`,
		`"\ud83d\ude00"`, `"\ud800"`, "\"raw\x01control\"", "\"bad utf8 \xff\"", `"del` + "\x7f" + `"`, `12`, `null`, `{"a":"b"}`, `["x"]`, `"unterminated`} {
		var want any
		wantOK := utiljson.Unmarshal([]byte(js), &want) == nil
		got, ok := decode([]byte(js))
		if ok != wantOK || ok && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: decoded %#v (%v), the decoder %#v (%v)", js, got, ok, want, wantOK)
		}
	}
	name := []byte(`"a-deployment-name"`)
	if allocs := testing.AllocsPerRun(20, func() { decodeSink, _ = decode(name) }); allocs > 2 { // the string and its interface
		t.Errorf("decoding a plain string took %.0f allocations", allocs)
	}
}

var decodeSink any
