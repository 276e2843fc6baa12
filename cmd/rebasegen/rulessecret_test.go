package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rules Secret generate writes for a PackageInstall, given where the manifests go, is named
// with the flag that takes it (newcomer walkthrough 10, N10-6): -d secret.yml was read as a
// Secret kapp would create, so explain said "kapp would create it" and exited 0, check (beside
// the manifests) failed on every ghost diff its rules remove, and a stray secret.yml was "did you
// mean -d". A Secret a desired PackageInstall names is the app's own and is deployed as any other.
func TestRulesSecretNamesItsFlag(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	desired, live, ns := fix[1], fix[3], fix[5]
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.yml")
	if r := rebasegen(t, append(append([]string{"generate"}, fix...), "-o", "secret", "--package-install", "shop", "--output-file", secret)...); r.code != 0 {
		t.Fatalf("generate -o secret: exit %d\n%s", r.code, r.stderr)
	}
	refusal := "--desired " + secret + ": document 1 (line 1): a rules Secret, not a manifest: v1 Secret " + ns + "/shop-rebase-rules holding rebase-rules.yml"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "-d", secret, "-l", live, "-n", ns}, refusal},
		{[]string{"generate", "-d", secret, "-l", live, "-n", ns}, refusal},
		{[]string{"check", "-d", secret, "-l", live, "-n", ns, "--rules", secret}, refusal},
		{[]string{"check", "-d", desired, "-d", secret, "-l", live, "-n", ns, "--rules", secret}, refusal},
		{[]string{"lint", "-d", secret, "--rules", secret}, refusal},
		{[]string{"check", "-d", desired, "-l", live, "-n", ns, secret}, "\nhint: did you mean --rules " + secret + "? It holds a rules Secret (rebase-rules.yml)"},
		{[]string{"explain", "-d", desired, "-l", live, "-n", ns, secret}, "\nhint: " + secret + " holds a rules Secret (rebase-rules.yml), which explain does not read: check and lint judge them (--rules)"},
	} {
		r := rebasegen(t, tc.args...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("rebasegen %v: exit %d, want %d saying %q:\nstdout: %s\nstderr: %s", tc.args, r.code, exitError, tc.want, r.stdout, r.stderr)
		}
	}
	if r := rebasegen(t, "check", "-d", desired, "-l", live, "-n", ns, "--rules", secret); r.code != 0 {
		t.Errorf("check --rules %s, as the refusal says: exit %d\n%s", secret, r.code, r.stderr)
	}

	// deployed by the app whose PackageInstall reads it: a desired object as any other
	pi := filepath.Join(dir, "install.yaml")
	if err := os.WriteFile(pi, []byte("apiVersion: packaging.carvel.dev/v1alpha1\nkind: PackageInstall\nmetadata:\n  name: shop\n  namespace: "+ns+
		"\n  annotations:\n    ext.packaging.carvel.dev/ytt-paths-from-secret-name.0: shop-rebase-rules\nspec:\n  packageRef: {refName: shop.example.com, versionSelection: {constraints: 1.0.0}}\n  serviceAccountName: sa\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, "explain", "-d", pi, "-d", secret, "-l", live, "-n", ns)
	if r.code != 0 || !strings.Contains(r.stdout, "core/Secret "+ns+"/shop-rebase-rules: not among the live objects (kapp") {
		t.Errorf("explain -d %s -d %s: exit %d, want the Secret a pending create:\n%s%s", pi, secret, r.code, r.stdout, r.stderr)
	}
}
