package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression (issue 24, newcomer7 N7-6): a package checked with a wrong -n, its ClusterRoles the
// only objects that pair. The committed rules were called stale ("undo the edit", which nobody
// made), the regeneration shown pinning the package's kind-wide Deployment rule to the capture's
// namespace, which a package's rules must not name. The rules are not judged then: -n is what to
// fix, and the note says so; with the right -n the same rules are up to date.
func TestWrongNamespaceLeavesStaleUnjudged(t *testing.T) {
	dir := t.TempDir()
	config, values := copyPackage(t, dir)
	copyTo(t, scenario(t, "aggregated-clusterrole")[1], config, "rbac.yml")
	live := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(live, []byte(readFile(t, scenario(t, "hpa-replicas")[3])+"\n---\n"+readFile(t, scenario(t, "aggregated-clusterrole")[3])), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(config, "rebase-rules.yml")
	args := func(cmd, ns string) []string {
		return []string{cmd, "--package", config, "--values", values, "-l", live, "-n", ns}
	}
	if r := rebasegen(t, append(args("generate", "hpa-replicas"), "--output-file", rules)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(readFile(t, rules), "apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}") {
		t.Fatal("the package's rules have no kind-wide Deployment rule to pin")
	}
	r := rebasegen(t, append(args("check", "prod"), "--rules", rules)...)
	if r.code != exitPending || !strings.Contains(r.stdout, "did you mean -n hpa-replicas?") || !strings.Contains(r.stdout, "0 stale generated files") ||
		strings.Contains(r.stdout, "kindNamespaceNameMatcher") ||
		!strings.Contains(r.stderr, "note: generated rule files not judged stale: the namespaced desired objects do not pair with the live objects, which hold them in namespace hpa-replicas (did you mean -n hpa-replicas?)") {
		t.Errorf("check -n prod: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 3 for the pending creates, the -n hint, the rules not judged", r.code, r.stdout, r.stderr)
	}
	if r := rebasegen(t, append(args("check", "hpa-replicas"), "--rules", rules)...); r.code != 0 || !strings.Contains(r.stdout, "0 stale generated files") || strings.Contains(r.stderr, "not judged") {
		t.Errorf("check -n hpa-replicas: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
