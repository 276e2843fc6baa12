package scenario

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/internal/testcluster"
)

const fixtures = "../../fixtures"

// TestFixturesConsistent checks the captured fixtures offline: every desired object has its live
// object, and the fields section lists exactly the paths fielddiff reports today (when fielddiff
// changes, run `make fixtures`).
func TestFixturesConsistent(t *testing.T) {
	all, err := LoadAll(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 18 {
		t.Errorf("%d scenarios, want at least 18", len(all))
	}
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			if filepath.Base(s.Dir) != s.Name {
				t.Errorf("directory %s holds scenario %s", s.Dir, s.Name)
			}
			var want []string
			for _, o := range s.Objects {
				if o.Live == nil {
					t.Fatal("no live.yaml: run `make fixtures`")
				}
				paths, err := fieldPaths(o.Desired, o.Live)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range paths {
					want = append(want, o.Resource+" "+p.String())
				}
			}
			var got []string
			for _, f := range s.Fields {
				got = append(got, f.Resource+" "+f.Path)
				if f.Class != ClassDefaulted && f.Class != ClassCalculated && f.Class != ClassAdmission && f.Class != ClassDrift && f.Class != ClassAdoption && f.Class != ClassOperational &&
					!strings.HasPrefix(f.Class, ControllerClass) {
					t.Errorf("%s %s: class %q", f.Resource, f.Path, f.Class)
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("fields section is stale (run `make fixtures`):\ngot  %q\nwant %q", got, want)
			}
			if _, err := os.Stat(filepath.Join(s.Dir, ServerVersionFile)); err != nil {
				t.Errorf("no %s: run `make fixtures`", ServerVersionFile)
			}
			if _, err := CapturedOn(s.Dir); err != nil {
				t.Error(err)
			}
			if s.RealChange != nil {
				if _, err := s.DesiredWithRealChange(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestCaptureReproducible runs every scenario again on a fresh cluster and expects the same fields
// and classes as the fixtures.
func TestCaptureReproducible(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{ControllerManager: true})
	all, err := LoadAll(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	tg := Target{Kubeconfig: c.Kubeconfig, Kapp: c.KappPath()}
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			want := fieldStrings(s.Fields)
			res, err := s.Run(context.Background(), tg)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Cleanup(context.Background(), tg); err != nil {
				t.Error(err)
			}
			if got := fieldStrings(res.Fields); !slices.Equal(got, want) {
				t.Errorf("fields differ from the fixture:\ngot  %q\nwant %q", got, want)
			}
		})
	}
}

func fieldStrings(fs []Field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s", f.Resource, f.Path, f.Class))
	}
	slices.Sort(out)
	return out
}

func TestWaitForPathKeys(t *testing.T) {
	for path, want := range map[string][]string{
		"spec.replicas": {"spec", "replicas"},
		`metadata.annotations["deployment.kubernetes.io/revision"]`: {"metadata", "annotations", "deployment.kubernetes.io/revision"},
		`metadata.labels["a\"b"].x`:                                 {"metadata", "labels", `a"b`, "x"},
		"":                                                          nil, ".spec": nil, "spec..replicas": nil, "spec.": nil, `spec["unterminated]`: nil, `spec["bad\q"]`: nil,
	} {
		got, err := mapKeys(path)
		if !slices.Equal(got, want) || (err == nil) != (want != nil) {
			t.Errorf("mapKeys(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
}

// Write keeps the API server's GET /version body beside live.yaml, byte for byte, and live.yaml's
// header names the version (issue 26: the server's version is part of the input).
func TestWriteKeepsServerVersion(t *testing.T) {
	dir := t.TempDir()
	src, err := Load(filepath.Join(fixtures, "daemonset"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"scenario.yaml", "desired.yaml"} {
		b, err := os.ReadFile(filepath.Join(src.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte("{\n  \"major\": \"1\",\n  \"minor\": \"36\",\n  \"gitVersion\": \"v1.36.4\"\n}")
	live := []*unstructured.Unstructured{src.Objects[0].Live}
	if err := s.Write(&Result{Live: live, Fields: src.Fields, Version: body, GitVersion: "v1.36.4"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, ServerVersionFile))
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("%s: %q (%v), want the body GET /version returned: %q", ServerVersionFile, got, err, body)
	}
	l, err := os.ReadFile(filepath.Join(dir, "live.yaml"))
	if err != nil || !strings.HasPrefix(string(l), "# Captured by hack/capture (make fixtures) from kube-apiserver v1.36.4 after") {
		t.Errorf("live.yaml header does not name the server's version: %.120q (%v)", l, err)
	}
	if v, err := CapturedOn(dir); v != "v1.36.4" || err != nil {
		t.Errorf("CapturedOn: %q, %v; want v1.36.4", v, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ServerVersionFile), []byte(`{"gitVersion": "v1.35.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CapturedOn(dir); err == nil || !strings.Contains(err.Error(), `server-version.json says "v1.35.0"`) {
		t.Errorf("CapturedOn with a server-version.json naming another version: %v", err)
	}
}
