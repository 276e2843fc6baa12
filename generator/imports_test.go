package generator

import (
	"os/exec"
	"strings"
	"testing"
)

// The import graph, as `go list -deps` reports it: data flows one way, from the stages
// (generator/<stage>) to the orchestrator (generator) and cmd/, never back up; and the stages that
// need only kapp's keys (internal/kappconv) do not link kapp, nor ytt unless they run it
// (yttrender renders ytt packages, kappcover runs kapp's rebase rules): load, pair and classify,
// which a controller's comparison links, link neither.
func TestImportGraph(t *testing.T) {
	const mod = "github.com/rebasegen/rebasegen"
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}:{{join .Deps " "}}`, mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, list, _ := strings.Cut(line, ":")
		deps[pkg] = map[string]bool{}
		for _, d := range strings.Fields(list) {
			deps[pkg][d] = true
		}
	}
	links := func(pkg, prefix string) bool {
		for d := range deps[pkg] {
			if d == prefix || strings.HasPrefix(d, prefix+"/") {
				return true
			}
		}
		return false
	}
	stages := 0
	for pkg := range deps {
		if strings.HasPrefix(pkg, mod+"/generator/") {
			stages++
			if deps[pkg][mod+"/generator"] {
				t.Errorf("%s imports the orchestrator %s/generator", pkg, mod)
			}
		}
	}
	// Data packages hold knowledge only: no stage, no kapp, no ytt.
	for _, data := range []string{"rulesets", "internal/format", "internal/generated"} {
		if links(mod+"/"+data, mod+"/generator") || links(mod+"/"+data, "carvel.dev") {
			t.Errorf("%s (data) imports a stage or kapp/ytt", data)
		}
	}
	if stages < 8 {
		t.Errorf("found %d packages under generator/, want the stages (load, pair, fielddiff, classify, synth, emit, verify, lint, ...)", stages)
	}
	// The API server's storage (etcd client, grpc, otel) stays out of what people link: the create
	// strategies whose packages carry it are run by classify through the helpers they call. The
	// binary links grpc through Argo CD's packages (its Application types), which only the
	// argocd target links; the apiextensions apiserver's CRD validation, whose package links its
	// webhook client (grpc too), is handed to the library by the binary
	// (generator.Inputs.CRDUpdate), which the argocd target makes link grpc anyway.
	for _, pkg := range []string{"cmd/rebasegen", "compare", "generator/classify", "generator"} {
		for _, heavy := range []string{"k8s.io/apiserver/pkg/registry/generic", "go.etcd.io/etcd", "google.golang.org/grpc"} {
			if links(mod+"/"+pkg, heavy) && !(pkg == "cmd/rebasegen" && heavy == "google.golang.org/grpc" && links(mod+"/generator/argocd", heavy)) {
				t.Errorf("%s links %s", pkg, heavy)
			}
		}
	}
	// Argo CD's packages are the argocd target's alone: no other stage, the orchestrator and the
	// library link them, so the kapp path builds and runs without them (cmd/rebasegen wires the
	// target).
	if !links(mod+"/generator/argocd", "github.com/argoproj/argo-cd/v3") || !links(mod+"/cmd/rebasegen", mod+"/generator/argocd") {
		t.Errorf("generator/argocd does not link Argo CD, or cmd/rebasegen does not link the target")
	}
	for pkg := range deps {
		// hack/capture applies the Argo-applied fixtures with Argo CD's own sync code: a program
		// beside the pipeline, not on the kapp path
		if !strings.HasPrefix(pkg, mod+"/") || strings.HasPrefix(pkg, mod+"/generator/argocd") || strings.HasPrefix(pkg, mod+"/cmd/") || pkg == mod+"/hack/capture" {
			continue
		}
		if links(pkg, "github.com/argoproj") {
			t.Errorf("%s links Argo CD (only generator/argocd, cmd/rebasegen and hack/capture may)", pkg)
		}
	}
	for _, tc := range []struct {
		pkg       string
		kapp, ytt bool
	}{
		{"internal/kappconv", false, false},
		{"generator/fielddiff", false, false},
		{"generator/load", false, false},
		{"generator/pair", false, false},
		{"generator/classify", false, false},
		{"generator/yttrender", false, true},
		{"generator/kappcover", true, true},
		{"internal/kappglobal", true, true},
	} {
		if _, ok := deps[mod+"/"+tc.pkg]; !ok {
			t.Errorf("%s: not in the module", tc.pkg)
			continue
		}
		if got := links(mod+"/"+tc.pkg, "carvel.dev/kapp"); got != tc.kapp {
			t.Errorf("%s links kapp: %v, want %v", tc.pkg, got, tc.kapp)
		}
		if got := links(mod+"/"+tc.pkg, "carvel.dev/ytt"); got != tc.ytt {
			t.Errorf("%s links ytt: %v, want %v", tc.pkg, got, tc.ytt)
		}
	}
}
