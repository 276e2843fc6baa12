package fielddiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
)

// FuzzDiff: any two objects diff without panicking; deltas come sorted by path, each names a
// path that exists on the side(s) its change says; an object has no difference with itself.
func FuzzDiff(f *testing.F) {
	dirs, err := filepath.Glob("../../fixtures/*/scenario.yaml")
	if err != nil || len(dirs) == 0 {
		f.Fatalf("no fixtures (%v)", err)
	}
	for _, s := range dirs {
		dir := filepath.Dir(s)
		var sides [2][]load.Object
		for i, name := range []string{"desired.yaml", "live.yaml"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				f.Fatal(err)
			}
			if sides[i], err = load.Bytes(name, data); err != nil {
				f.Fatal(err)
			}
		}
		for i := range min(len(sides[0]), len(sides[1])) { // live.yaml is in desired.yaml's order
			d, _ := json.Marshal(sides[0][i].Object)
			l, _ := json.Marshal(sides[1][i].Object)
			f.Add(d, l)
		}
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"a":"b"}}`),
		[]byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"a":"Yg=="}}`))
	f.Add([]byte(`{"apiVersion":"x/v1","kind":"W","metadata":{"name":"a","labels":{"kapp.k14s.io/app":"1"}},"spec":{"l":[1,2]}}`),
		[]byte(`{"apiVersion":"x/v1","kind":"W","metadata":{"name":"a"},"spec":{"l":[1,2,3],"m":{}}}`))

	f.Fuzz(func(t *testing.T, desired, live []byte) {
		d, l := object(desired), object(live)
		if d == nil || l == nil {
			return
		}
		deltas, err := Diff(d.Unstructured, l.Unstructured)
		if err != nil {
			return
		}
		if !sort.SliceIsSorted(deltas, func(i, j int) bool { return deltas[i].Path.String() < deltas[j].Path.String() }) {
			t.Fatal("deltas are not sorted by path")
		}
		for _, dl := range deltas {
			if len(dl.Path) == 0 {
				t.Fatalf("delta with an empty path: %+v", dl)
			}
			for _, pe := range dl.Path {
				if pe.FieldName != nil && isPlainKey(*pe.FieldName) != plainKey.MatchString(*pe.FieldName) {
					t.Fatalf("isPlainKey(%q) disagrees with %s", *pe.FieldName, plainKey)
				}
			}
		}
		same, err := Diff(d.Unstructured, d.DeepCopy())
		if err != nil {
			t.Fatalf("diffing an object with itself: %v", err)
		}
		// Only the desired side's Secret stringData is folded into data (a live object never has
		// it), and kapp's own keys are counted as noise on every live object.
		_, folds := d.Object["stringData"]
		for _, dl := range same {
			if dl.Noise == "" && !folds {
				t.Fatalf("an object differs from itself: %s %s (of %d)", dl.Change, dl.Path, len(same))
			}
		}
	})
}

// object is the first object in data, or nil.
func object(data []byte) *load.Object {
	objs, err := load.Bytes("fuzz.yaml", data)
	if err != nil || len(objs) == 0 {
		return nil
	}
	return &objs[0]
}

func TestIsPlainKeyIsTheRegexp(t *testing.T) {
	for _, s := range []string{"", "a", "Z9_-", "a.b", "kapp.k14s.io/app", "é", "a b", "\x00", "-", "_", "a\n", "[", "0"} {
		if isPlainKey(s) != plainKey.MatchString(s) {
			t.Errorf("isPlainKey(%q) = %v, regexp says %v", s, isPlainKey(s), !isPlainKey(s))
		}
	}
}

// plainKey is the specification isPlainKey implements without a regexp.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
