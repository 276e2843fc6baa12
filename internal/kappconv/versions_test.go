package kappconv

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
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

// KappController follows go.mod's kapp-controller (required for the e2e cluster's controller),
// and KappControllerKapp the kapp that release deploys with: its hack/dependencies.yml, read
// from the module cache where the module is there.
func TestKappControllerPinsMatchGoMod(t *testing.T) {
	const module = "github.com/vmware-tanzu/carvel-kapp-controller"
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(f.Require, func(r *modfile.Require) bool { return r.Mod.Path == module })
	if i < 0 || f.Require[i].Mod.Version != KappController {
		t.Fatalf("go.mod does not require %s %s: update the pin", module, KappController)
	}
	out, err := exec.Command("go", "list", "-mod=mod", "-m", "-f", "{{.Dir}}", module).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("%s is not in the module cache (%v): its kapp is not checked", module, err)
	}
	deps, err := os.ReadFile(filepath.Join(dir, "hack", "dependencies.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// the kapp entry: "name: kapp", its repo and urlTemplate, then "version: vX.Y.Z"
	_, after, ok := strings.Cut(string(deps), "\n  name: kapp\n")
	if !ok || !strings.Contains(strings.SplitN(after, "\n- ", 2)[0]+"\n", "version: v"+KappControllerKapp+"\n") {
		t.Errorf("%s %s's hack/dependencies.yml does not pin kapp v%s", module, KappController, KappControllerKapp)
	}
}
