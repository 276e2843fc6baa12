package comparetruth

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestRecordedRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, CRDFile), []byte(CRDDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := Cases()[0]
	desired := &unstructured.Unstructured{Object: deepCopy(cs.Desired)}
	desired.SetName("web")
	live := desired.DeepCopy()
	live.SetResourceVersion("7")
	want := Recorded{Case: cs, Desired: desired, Live: live, Truth: Truth{Server: "v1.0.0", Mode: cs.Mode, Changed: true, Differs: []string{"content"}}}
	b, err := want.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, cs.Name+".yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, crd, err := ReadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if crd.GetName() != "widgets.compare.example.com" || len(got) != 1 {
		t.Fatalf("CRD %q, %d cases", crd.GetName(), len(got))
	}
	if !reflect.DeepEqual(got[0].Desired.Object, roundTrip(t, desired.Object)) || !reflect.DeepEqual(got[0].Live.Object, roundTrip(t, live.Object)) ||
		!reflect.DeepEqual(got[0].Truth, want.Truth) || got[0].Case.Name != cs.Name || got[0].Case.Mode != cs.Mode || len(got[0].Case.Steps) != len(cs.Steps) {
		t.Errorf("read back %+v\nwrote %+v", got[0], want)
	}

	// a file missing its verdict, or named after another case, is an error naming it
	three := b[:strings.LastIndex(string(b), "---\n")]
	if err := os.WriteFile(filepath.Join(dir, cs.Name+".yaml"), three, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadCorpus(dir); err == nil || !strings.Contains(err.Error(), cs.Name+".yaml: 3 documents, want 4") {
		t.Errorf("three documents: %v", err)
	}
	if err := os.Rename(filepath.Join(dir, cs.Name+".yaml"), filepath.Join(dir, "other.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadCorpus(dir); err == nil || !strings.Contains(err.Error(), `other.yaml: the case is named "`+cs.Name+`"`) {
		t.Errorf("misnamed: %v", err)
	}
}

func roundTrip(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return obj(string(b))
}
