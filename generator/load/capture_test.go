package load

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A --live directory holding server-version.json is the directory rebasegen capture writes:
// CaptureDirs is the one place that reads it so (live.yaml the live objects, crds.yaml added to
// the CRDs once, desired.yaml and server-version.json no objects), and the objects read from
// what it returns are live.yaml's alone. Any other path is as given; the directory without its
// live.yaml is an error naming both.
func TestCaptureDirs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	capture := filepath.Join(dir, "capture")
	write("capture/"+ServerVersionFile, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`)
	live := write("capture/"+CaptureLive, obj("live"))
	crds := write("capture/"+CaptureCRDs, obj("crd"))
	write("capture/"+CaptureDesired, obj("desired"))
	plain := filepath.Dir(write("plain/a.yaml", obj("a")))
	file := write("b.yaml", obj("b"))
	other := write("other-crds.yaml", obj("other"))

	for _, tc := range []struct {
		name               string
		live, crds         []string
		wantLive, wantCRDs []string
	}{
		{"capture directory", []string{capture}, []string{other}, []string{live}, []string{other, crds}},
		{"its crds.yaml given already", []string{capture}, []string{crds}, []string{live}, []string{crds}},
		{"other paths as given", []string{plain, file, "-"}, nil, []string{plain, file, "-"}, nil},
	} {
		gotLive, gotCRDs, err := CaptureDirs(tc.live, tc.crds)
		if err != nil || !slices.Equal(gotLive, tc.wantLive) || !slices.Equal(gotCRDs, tc.wantCRDs) {
			t.Errorf("%s: got %v %v (%v), want %v %v", tc.name, gotLive, gotCRDs, err, tc.wantLive, tc.wantCRDs)
		}
	}

	docs, err := Inputs("--live", []string{live}, NewReader(nil))
	if err != nil || len(docs) != 1 || docs[0].Name != "live" {
		t.Errorf("the capture's live objects: got %v (%v), want live.yaml's one object", docs, err)
	}

	if err := os.Remove(live); err != nil {
		t.Fatal(err)
	}
	if _, _, err := CaptureDirs([]string{capture}, nil); err == nil || !strings.Contains(err.Error(), "--live "+capture) || !strings.Contains(err.Error(), CaptureLive) {
		t.Errorf("without live.yaml: want an error naming %s and %s, got %v", capture, CaptureLive, err)
	}
}
