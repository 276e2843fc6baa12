package generator_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// A --live directory holding server-version.json is the directory rebasegen capture writes (a
// fixture's directory is one: desired.yaml, live.yaml, server-version.json): its live.yaml is
// read as the live objects and server-version.json as the server's version, as the README says,
// not every file as objects (newcomer24 finding 10: "server-version.json: ... not a Kubernetes
// object"). Without live.yaml the error says what to pass.
func TestLiveCaptureDirectory(t *testing.T) {
	in := fixture("hpa-replicas")
	want, _, err := generator.Explain(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Live = []string{filepath.Dir(in.Live[0])}
	got, _, err := generator.Explain(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resources) != len(want.Resources) || len(got.Created)+len(got.Deleted)+len(got.LiveOnly) != len(want.Created)+len(want.Deleted)+len(want.LiveOnly) {
		t.Fatalf("%d resources, %d unpaired; want %d, %d", len(got.Resources), len(got.Created)+len(got.Deleted)+len(got.LiveOnly), len(want.Resources), len(want.Created)+len(want.Deleted)+len(want.LiveOnly))
	}
	for i := range want.Resources {
		if !reflect.DeepEqual(classes(got.Resources[i].Findings), classes(want.Resources[i].Findings)) {
			t.Errorf("%s: findings differ", want.Resources[i].ID)
		}
	}

	dir := t.TempDir()
	sv, err := os.ReadFile(filepath.Join("..", "fixtures", "hpa-replicas", "server-version.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server-version.json"), sv, 0o644); err != nil {
		t.Fatal(err)
	}
	in.Live = []string{dir}
	_, _, err = generator.Explain(in)
	if err == nil || !strings.Contains(err.Error(), "--live "+dir) || !strings.Contains(err.Error(), "live.yaml") {
		t.Errorf("want an error naming the directory and its missing live.yaml, got %v", err)
	}
}
