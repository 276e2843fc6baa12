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
	if err := os.WriteFile(live, []byte(oneApp(readFile(t, scenario(t, "hpa-replicas")[3])+"\n---\n"+readFile(t, scenario(t, "aggregated-clusterrole")[3]))), 0o644); err != nil {
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

// Regression (issue 24, newcomer7 N7-11): a hand-written remove rule "silencing the finalizer
// diff" of a PersistentVolumeClaim. kapp's built-in rules copy the finalizers the
// StorageObjectInUseProtection admission plugin added from the live object; the remove rule takes
// them out again, so every deploy's update drops kubernetes.io/pvc-protection (kapp's engine is
// the oracle: it updates both claims). The gate failed with kapp's raw diff, no field, no class
// and no rule named, which read as a call for more rules. It names the field, its class and the
// rule to remove, where the rule is written.
func TestRemoveRuleUndoingKappsCopyIsNamed(t *testing.T) {
	fix := scenario(t, "pv-binder")
	dir := t.TempDir()
	rules, hand := filepath.Join(dir, "rules.yml"), filepath.Join(dir, "hand.yml")
	if r := rebasegen(t, append([]string{"generate"}, append(fix, "--output-file", rules)...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.WriteFile(hand, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: remove
  paths:
  - [metadata, finalizers]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: PersistentVolumeClaim}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, append(append([]string{"check"}, fix...), "--rules", hand, "--rules", rules)...)
	for _, claim := range []string{"static", "dynamic"} {
		want := "residual ghost diff: core/PersistentVolumeClaim pv-binder/" + claim + " metadata.finalizers (admission): " + hand + ":4, document 1, rebaseRules[0] (remove [metadata, finalizers]) removes it from what kapp applies"
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	if r.code != exitPending || strings.Contains(r.stdout, "kapp still reports update") || !strings.Contains(r.stdout, "2 residual ghost diffs") {
		t.Errorf("exit %d, want 3, two named residual ghost diffs:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// check's help and README's exit table said 3 is "as kapp --diff-exit-status: 3 = pending
// changes", beside check's own "pending change from Git", which exits 0 (newcomer7 N7-9 d).
func TestCheckExitThreeIsNotPendingChanges(t *testing.T) {
	r := rebasegen(t, "check", "--help")
	help := strings.Join(strings.Fields(r.stdout), " ")
	if strings.Contains(help, "3 = pending changes") || !strings.Contains(help, "a pending change from Git alone exits 0") {
		t.Errorf("check --help:\n%s", r.stdout)
	}
}
