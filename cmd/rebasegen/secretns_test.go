package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rules Secret goes into the PackageInstall's namespace. Where nothing says which (no
// NAMESPACE/ in --package-install, no -n, every manifest declaring its own namespace), generate
// asks for it; it wrote the Secret and the annotate command into "default" without a word
// (newcomer walkthrough 8, N8-12).
func TestSecretNamespaceIsNotGuessed(t *testing.T) {
	fixture := filepath.Join("..", "..", "fixtures", "hpa-replicas")
	bs, err := os.ReadFile(filepath.Join(fixture, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	desired := filepath.Join(t.TempDir(), "desired.yaml")
	withNs := strings.ReplaceAll(string(bs), "\nmetadata:\n", "\nmetadata:\n  namespace: hpa-replicas\n")
	if strings.Count(withNs, "namespace: hpa-replicas") != strings.Count(withNs, "\nkind: ") {
		t.Fatalf("the fixture's objects do not each get a namespace:\n%s", withNs)
	}
	if err := os.WriteFile(desired, []byte(withNs), 0o644); err != nil {
		t.Fatal(err)
	}
	in := []string{"generate", "-o", "secret", "-d", desired, "-l", filepath.Join(fixture, "live.yaml")}
	r := rebasegen(t, append(in, "--package-install", "shop")...)
	if r.code != 1 || !strings.Contains(r.stderr, "give --package-install NAMESPACE/shop") || strings.Contains(r.stdout, "namespace: default") {
		t.Errorf("--package-install shop: exit %d, want 1 asking for the namespace\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(in, "--package-install", "pkgs/shop")...)
	if r.code != 0 || !strings.Contains(r.stdout, "kubectl annotate packageinstall shop -n pkgs ") || !strings.Contains(r.stdout, "\n  namespace: pkgs\n") {
		t.Errorf("--package-install pkgs/shop: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// A package whose manifests declare no namespace is deployed in the PackageInstall's: the
// namespace inferred from the live objects is the Secret's, with the note saying so; generate
// refused it, before the analysis that infers it, "because the manifests declare their own
// namespaces", which they did not (newcomer9 N9-7).
func TestSecretNamespaceInferredFromTheLiveObjects(t *testing.T) {
	fixture := filepath.Join("..", "..", "fixtures", "hpa-replicas")
	r := rebasegen(t, "generate", "-o", "secret", "-d", filepath.Join(fixture, "desired.yaml"), "-l", filepath.Join(fixture, "live.yaml"), "--package-install", "shop")
	if r.code != 0 || !strings.Contains(r.stderr, "note: namespace hpa-replicas inferred from the live objects") ||
		!strings.Contains(r.stdout, "kubectl annotate packageinstall shop -n hpa-replicas ") || !strings.Contains(r.stdout, "\n  namespace: hpa-replicas\n") {
		t.Errorf("exit %d, want 0 and the Secret in hpa-replicas\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
