package rulesets

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// kubernetesSource is the directory of the k8s.io/kubernetes module rebasegen builds with: its
// sources are the oracle of the sweeps over them.
func kubernetesSource(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go list -m k8s.io/kubernetes: %v", err)
	}
	return dir
}

// Every kind the API server serves cluster-scoped (its registry strategy's NamespaceScoped
// returns false) is in rulesets/cluster-scoped.yaml: a ResourceSlice, missing, was paired as a
// namespaced object in -n's namespace and never met its live counterpart (fix27c). The oracle is
// the strategies' source in k8s.io/kubernetes, each kind read from the type its strategy asserts.
func TestClusterScopedKindsAreTheServers(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(kubernetesSource(t), "pkg", "registry", "*", "*", "strategy.go"))
	if err != nil || len(files) < 50 {
		t.Fatalf("the registry strategies: %d files (%v)", len(files), err)
	}
	clusterScoped := regexp.MustCompile(`NamespaceScoped\(\) bool \{\s*return false`)
	asserted := regexp.MustCompile(`\.\(\*(\w+)\.(\w+)\)`)
	groups := map[string]string{"api": "", "core": "", "rbac": "rbac.authorization.k8s.io", "flowcontrol": "flowcontrol.apiserver.k8s.io", "apiserverinternal": "internal.apiserver.k8s.io", "admissionregistration": "admissionregistration.k8s.io"}
	found := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !clusterScoped.Match(src) {
			continue
		}
		m := asserted.FindSubmatch(src)
		if m == nil {
			t.Errorf("%s: no type asserted to read the kind from", f)
			continue
		}
		pkg, kind := string(m[1]), string(m[2])
		group, ok := groups[pkg]
		if !ok {
			group = pkg + ".k8s.io"
		}
		found++
		if !slices.ContainsFunc(rs.ClusterScoped, func(k Kind) bool { return k.Group == group && k.Kind == kind }) {
			t.Errorf("%s/%s is cluster-scoped (%s) and not in rulesets/cluster-scoped.yaml", group, kind, f)
		}
	}
	if found < 25 {
		t.Fatalf("only %d cluster-scoped strategies found: the sweep no longer reads the sources", found)
	}
}
