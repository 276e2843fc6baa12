package kappconv

import (
	"debug/buildinfo"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The pins follow go.mod: a bump of a module fails here until the constant follows it. Test
// binaries carry no dependency list, so the build info (what debug.ReadBuildInfo returns inside
// the program) is read from the rebasegen binary itself.
func TestPinsMatchTheBuildInfo(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rebasegen")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/rebasegen").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"carvel.dev/kapp":                "v" + Kapp,
		"carvel.dev/ytt":                 "v" + YTT,
		"k8s.io/kubernetes":              Kubernetes,
		"k8s.io/api":                     strings.Replace(Kubernetes, "v1.", "v0.", 1),
		"github.com/argoproj/argo-cd/v3": ArgoCD,
		"github.com/argoproj/argo-cd/gitops-engine/v3": ArgoCD,
	}
	found := map[string]bool{}
	for _, d := range info.Deps {
		v, pinned := want[d.Path]
		if !pinned {
			continue
		}
		found[d.Path] = true
		if d.Version != v {
			t.Errorf("%s is %s in the build, %s in kappconv: update the pin", d.Path, d.Version, v)
		}
	}
	for path := range want {
		if !found[path] {
			t.Errorf("%s is not linked into rebasegen: the pin cannot be checked", path)
		}
	}
}
