package verify

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
)

// Verification decodes the JSON encode writes without reading it as YAML: the object must be the
// one kapp's own parse of that JSON makes (resources.NewResourcesFromBytes, the oracle), for every
// captured object and for values whose form a YAML reading could change (numbers past float64's
// integers, exponents, escapes, empty values, Lists), and so must the errors' outcome.
func TestDesiredDecodedIsKappsParse(t *testing.T) {
	files, err := filepath.Glob("../../fixtures/*/desired.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("fixtures: %v (%d files)", err, len(files))
	}
	files = append(files, "../../fixtures/hpa-replicas/live.yaml", "../../fixtures/quantities/live.yaml", "../../fixtures/secret-empty-values/live.yaml")
	var objs []map[string]any
	for _, f := range files {
		for _, u := range fixtureDocs(t, f) {
			objs = append(objs, u.Object)
		}
	}
	odd := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "odd", "annotations": map[string]any{}},
		"data": map[string]any{"html": "<a href=\"x\">&</a>", "ctl": "tab\there\nline\u2028sep\x01", "yes": "yes", "null": "null", "bad": "\xff"},
		"spec": map[string]any{
			"ints":   []any{int64(0), int64(-1), int64(1) << 53, int64(1)<<53 + 1, int64(math.MaxInt64), int64(math.MinInt64)},
			"floats": []any{0.5, 1.0, 1e21, 1e-7, -0.0, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64},
			"empty":  []any{map[string]any{}, []any{}, nil, "", false},
		},
	}
	objs = append(objs, odd,
		map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{odd}},
		map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{odd, odd}},
		map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{}},
		map[string]any{})
	for i, o := range objs {
		bs, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		got, gotErr := desiredDecoded(bs)
		want, wantErr := desiredResource(bs)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("object %d (%v): error %v, kapp's parse %v", i, o["kind"], gotErr, wantErr)
			continue
		}
		if gotErr == nil && !reflect.DeepEqual(got.UnstructuredObject(), want.UnstructuredObject()) {
			t.Errorf("object %d (%s):\n%#v\nkapp's parse:\n%#v", i, want.Kind(), got.UnstructuredObject(), want.UnstructuredObject())
		}
		if gotErr == nil && !reflect.DeepEqual(got.(*ctlres.ResourceImpl), want.(*ctlres.ResourceImpl)) {
			t.Errorf("object %d (%s): the resources differ beside their objects", i, want.Kind())
		}
	}
	t.Logf("%d objects", len(objs))
}
