package load

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const pkgDir = "../../fixtures/packages/hpa-web"

// The package renders, with its values, to exactly the manifests the hpa-replicas scenario
// deployed: same objects as reading desired.yaml.
func TestPackageRendersLikeTheDeployedManifests(t *testing.T) {
	want, err := Paths([]string{"../../fixtures/hpa-replicas/desired.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Package{
		"directory":  {Dirs: []string{pkgDir + "/config"}, ValuesFiles: []string{pkgDir + "/values.yml"}},
		"package-cr": {CR: pkgDir + "/package.yml", Values: []string{"image=nginx:1.25"}},
	} {
		docs, err := p.Render()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := Objects(docs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d objects, want %d", name, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i].Object, want[i].Object) {
				t.Errorf("%s: object %d differs:\n got %v\nwant %v", name, i, got[i].Object, want[i].Object)
			}
		}
	}
}

func TestPackageErrors(t *testing.T) {
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.yml")
	os.WriteFile(remote, []byte(`apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata: {name: x.1.0.0}
spec:
  template:
    spec:
      fetch: [{imgpkgBundle: {image: registry.example/x@sha256:abc}}]
      template: [{ytt: {}}]
`), 0o644)
	for name, tc := range map[string]struct {
		p    Package
		want string
	}{
		"image fetch is out of scope": {Package{CR: remote}, "fetch[0] is imgpkgBundle: only inline fetches can be rendered offline"},
		"ytt error as ytt prints it":  {Package{Dirs: []string{pkgDir + "/config"}, Values: []string{"replicas=oops"}}, "One or more data values were invalid"},
		"missing directory":           {Package{Dirs: []string{filepath.Join(dir, "nope")}}, "reading package"},
		"not a Package":               {Package{CR: pkgDir + "/values.yml"}, "not a data.packaging.carvel.dev/v1alpha1 Package"},
	} {
		_, err := tc.p.Render()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want error containing %q, got %v", name, tc.want, err)
		}
	}
}
