package compare

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rebasegen/rebasegen/generator/load"
)

// cliError is the command line's error for doc read as a document (load.Bytes, what -d and -l
// read), without the file and document it names.
func cliError(t *testing.T, doc string) string {
	t.Helper()
	_, err := load.Bytes("f.yaml", []byte(doc))
	if err == nil {
		t.Fatalf("the command line reads %.40q", doc)
	}
	_, msg, ok := strings.Cut(err.Error(), "f.yaml: document 1 (line 1): ")
	if !ok {
		t.Fatalf("the command line's error %q names no document", err)
	}
	return msg
}

// Compare of objects with no apiVersion ({} and a nil map, which an empty Unstructured is)
// errored "compare: live: decoding again: <nil>", a bug's words naming nothing (probe20 P20-4):
// it now says what the command line says of the same document, naming the field missing, and
// which object lacks it. So for an object without kind or name.
func TestCompareEmptyObjects(t *testing.T) {
	c, err := New(WithUpdate())
	if err != nil {
		t.Fatal(err)
	}
	cm := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "ns"}}}
	}
	noName := cm()
	unstructured.RemoveNestedField(noName.Object, "metadata", "name")
	noKind := cm()
	delete(noKind.Object, "kind")
	for _, tc := range []struct {
		name          string
		desired, live runtime.Object
		doc, role     string // the document the command line reads, the object named
	}{
		{"both {}", &unstructured.Unstructured{Object: map[string]any{}}, &unstructured.Unstructured{Object: map[string]any{}}, "{}\n", "desired"},
		{"both nil maps", &unstructured.Unstructured{}, &unstructured.Unstructured{}, "{}\n", "desired"},
		{"live nil map", cm(), &unstructured.Unstructured{}, "{}\n", "live"},
		{"no name", noName, cm(), "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: ns}\n", "desired"},
		{"no kind", cm(), noKind, "apiVersion: v1\nmetadata: {name: cm, namespace: ns}\n", "live"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := "compare: " + tc.role + ": " + cliError(t, tc.doc)
			if _, err := c.Compare(tc.desired, tc.live); err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
		})
	}
	if _, err := New(WithUpdate(), WithCRDs(&unstructured.Unstructured{})); err == nil || err.Error() != "compare: WithCRDs: CRD 1: "+cliError(t, "{}\n") {
		t.Errorf("WithCRDs of an empty object: error %v", err)
	}
}

// The command line refuses an object larger than 4 MiB as JSON; the library did not (probe20
// P20-4): a Go value holding one map in many places, no cycle, is small in memory and its JSON
// grows as 2 to the power of its depth, so a Compare of it copied it without end. Both are now
// refused with the command line's words, naming the object, the shared one at once: the size is
// counted before anything copies or encodes it, stopping past the limit.
func TestCompareObjectSizeBounded(t *testing.T) {
	c, err := New(WithUpdate())
	if err != nil {
		t.Fatal(err)
	}
	var shared any = strings.Repeat("x", 100)
	for range 40 { // 2^40 copies of the string as JSON
		shared = map[string]any{"a": shared, "b": shared}
	}
	big := strings.Repeat("y", load.MaxObjectSize)
	want := "compare: live: " + cliError(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: w, namespace: d}\ndata: {k: "+big+"}\n")
	if !strings.Contains(want, "larger than 4 MiB") {
		t.Fatalf("the command line's error %q is not about the size", want)
	}
	for _, tc := range []struct {
		name string
		live runtime.Object
	}{
		{"shared maps", thing(shared)},
		{"one large string", thing(big)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := c.Compare(thing(map[string]any{}), tc.live)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || err.Error() != want {
					t.Errorf("error %v, want %q", err, want)
				}
				// a bound far above the time taken (a few tenths of a second on a loaded machine)
				// and far below an unbounded copy's
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("took %v", d)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("no answer after 60 s: the object is copied without bound")
			}
		})
	}
	// an object within the limit still compares
	if _, err := c.Compare(thing(strings.Repeat("z", load.MaxObjectSize-1000)), thing(strings.Repeat("z", load.MaxObjectSize-1000))); err != nil {
		t.Errorf("an object within the limit: %v", err)
	}
}
