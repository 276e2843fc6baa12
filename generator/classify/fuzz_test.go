package classify

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/rulesets"
)

// fixtureSet pairs one captured scenario.
func fixtureSet(tb testing.TB, name, ns string) (*pair.Set, *rulesets.Ruleset) {
	tb.Helper()
	rs, err := rulesets.Load()
	if err != nil {
		tb.Fatal(err)
	}
	var sides [2][]load.Doc
	for i, f := range []string{"desired.yaml", "live.yaml"} {
		path := filepath.Join("..", "..", "fixtures", name, f)
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		if sides[i], err = load.ParseDocs(path, data); err != nil {
			tb.Fatal(err)
		}
	}
	set, err := pair.Build(sides[0], sides[1], pair.Options{Namespace: ns, Rules: rs})
	if err != nil {
		tb.Fatal(err)
	}
	return set, rs
}

// FuzzManagedFields: a live object with arbitrary managedFields entries (any fieldsV1, manager,
// operation, subresource, time) is classified or rejected with an error naming the object and
// the entry; it never panics.
func FuzzManagedFields(f *testing.F) {
	// Seeds: every managedFields entry of the captured live objects.
	lives, err := filepath.Glob("../../fixtures/*/live.yaml")
	if err != nil || len(lives) == 0 {
		f.Fatalf("no fixtures (%v)", err)
	}
	for _, p := range lives {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		objs, err := load.Bytes(p, data)
		if err != nil {
			f.Fatal(err)
		}
		for _, o := range objs {
			for _, e := range o.GetManagedFields() {
				var raw []byte
				if e.FieldsV1 != nil {
					raw = e.FieldsV1.Raw
				}
				f.Add(e.Manager, string(e.Operation), e.Subresource, raw, "2026-11-22T04:41:11Z", false)
			}
		}
	}
	f.Add("kube-controller-manager", "Update", "scale", []byte(`{"f:spec":{"f:replicas":{}}}`), "", false)
	f.Add("x", "Apply", "", []byte(`{"f:spec":{"k:{\"name\":\"web\"}":{".":{}}}}`), "not a time", false)
	f.Add("x", "Update", "", []byte(`{"f:spec":"not a set"}`), "", false)
	f.Add("x", "Update", "", []byte(`{"i:0":{}}`), "", true)
	f.Add("", "", "", []byte(`not json`), "", false)

	set, rs := fixtureSet(f, "hpa-replicas", "hpa-replicas")
	f.Fuzz(func(t *testing.T, manager, operation, subresource string, fieldsV1 []byte, time string, notAMapping bool) {
		entry := map[string]any{"manager": manager, "operation": operation, "apiVersion": "apps/v1", "fieldsType": "FieldsV1"}
		if subresource != "" {
			entry["subresource"] = subresource
		}
		if time != "" {
			entry["time"] = time
		}
		var v any
		if err := utiljson.Unmarshal(fieldsV1, &v); err == nil && json.Valid(fieldsV1) {
			entry["fieldsV1"] = v
		} else {
			entry["fieldsV1"] = string(fieldsV1)
		}
		var item any = entry
		if notAMapping {
			item = manager
		}

		s := *set
		s.Pairs = append([]pair.Pair{}, set.Pairs...)
		p := &s.Pairs[0]
		live, err := p.Live.Object()
		if err != nil {
			t.Fatal(err)
		}
		meta := live.Object["metadata"].(map[string]any)
		mf, _ := meta["managedFields"].([]any)
		meta["managedFields"] = append(append([]any{}, mf...), item)
		if p.Live, err = load.NewDoc(live); err != nil {
			t.Fatal(err)
		}

		rep, err := Classify(&s, Options{Rules: rs})
		if err != nil {
			var le *load.Error
			if !errors.As(err, &le) || le.Source != p.Live.Source || !strings.HasPrefix(le.Field, "metadata.managedFields[") {
				t.Fatalf("error does not name the object and entry: %v", err)
			}
			return
		}
		if len(rep.Resources) != len(s.Pairs) {
			t.Fatalf("%d pairs, %d classified", len(s.Pairs), len(rep.Resources))
		}
		for _, r := range rep.Resources {
			for _, fd := range r.Findings {
				if fd.Class == "" || fd.Evidence == "" {
					t.Fatalf("%s %s: no class or evidence: %+v", r.ID, fd.Path, fd)
				}
			}
		}
	})
}
