package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rebasegen/rebasegen/rulesets"
)

// TestDataCurrent: the committed defaults data is what this program makes with the linked
// k8s.io/kubernetes. The reference (the linked version's defaults over the corpus) is recomputed
// and compared, and every version's file must have been generated against exactly that reference
// and name the linked version: each entry is a function of the reference and its version's own
// code, which this binary cannot link. A go.mod bump or a new fixture fails here until the data
// is regenerated with the commands the files' headers give.
func TestDataCurrent(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	version, err := kubernetesVersion()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := corpus()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Reference{Version: version, Objects: defaultAll(objs)}.marshal()
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, want) {
		t.Fatalf("%s is not what k8s.io/kubernetes %s makes of the corpus: run go run ./hack/defaults -reference, then each version's command (rulesets/defaults/*.yaml headers)", referenceFile, version)
	}
	digest := fmt.Sprintf("# Reference: %s sha256:%x\n", referenceFile, sha256.Sum256(committed))
	versions, err := rulesets.Versions()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("rulesets/defaults/*.yaml")
	if len(files) != len(versions) || len(files) == 0 {
		t.Fatalf("%d files, %d versions read", len(files), len(versions))
	}
	minorRE := regexp.MustCompile(`^v1\.[0-9]+$`)
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v := versions[i]
		if !bytes.Contains(data, []byte(digest)) || v.Reference != version {
			t.Errorf("%s was generated against another reference (%s): regenerate it (its header's command)", f, v.Reference)
		}
		if m := minor(v.Version); !minorRE.MatchString(m) || filepath.Base(f) != m+".yaml" {
			t.Errorf("%s holds the defaults of %s", f, v.Version)
		}
	}
}
