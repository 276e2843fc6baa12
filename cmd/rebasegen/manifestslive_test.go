package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifestsGivenAsLiveToo (newcomer9 N9-2): the manifests given as --live too (-l
// desired.yaml, here manifests that declare their namespaces, which the per-object check does not
// catch): explain said "no differences" for every resource and exited 0, check buried it under
// adoption and residual findings. Each command refuses one file given to both flags, by any path.
func TestManifestsGivenAsLiveToo(t *testing.T) {
	data, err := os.ReadFile(scenario(t, "hpa-replicas")[1])
	if err != nil {
		t.Fatal(err)
	}
	withNs := strings.ReplaceAll(string(data), "\nmetadata:\n", "\nmetadata:\n  namespace: hpa-replicas\n")
	if strings.Count(withNs, "namespace: hpa-replicas") < 2 {
		t.Fatalf("the fixture's manifests did not take a namespace:\n%s", withNs)
	}
	dir := t.TempDir()
	desired := filepath.Join(dir, "desired.yaml")
	if err := os.WriteFile(desired, []byte(withNs), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "live.yaml")
	if err := os.Symlink(desired, link); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(rules, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, live := range []string{desired, link} {
		want := "--live " + live + ": also given as --desired " + desired
		for _, cmd := range [][]string{{"explain"}, {"check", "--rules", rules}, {"generate", "--output-file", filepath.Join(t.TempDir(), "rules.yml")}} {
			r := rebasegen(t, append(cmd, "-d", desired, "-l", live)...)
			if r.code != exitError || !strings.Contains(r.stderr, want) || r.stdout != "" {
				t.Errorf("%s: exit %d, want %d and %q; stderr:\n%s\nstdout:\n%s", cmd[0], r.code, exitError, want, r.stderr, r.stdout)
			}
		}
	}
}
