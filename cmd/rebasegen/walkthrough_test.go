package main

import (
	"crypto/md5"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The findings of issue 24's last newcomer walkthrough (a new user with their own package,
// following only the README): each is said, or no longer happens.

// liveIn writes the hpa-replicas capture as if captured in namespace ns: the namespace and the
// kapp association labels (v1.<md5 of namespace/group/kind/name>, kapp v0.66.0
// resources/association_label.go) that kapp derives from it.
func liveIn(t *testing.T, dir, ns string) string {
	t.Helper()
	data, err := os.ReadFile(scenario(t, "hpa-replicas")[3])
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, r := range []string{"apps/Deployment/web", "autoscaling/HorizontalPodAutoscaler/web"} {
		text = strings.ReplaceAll(text, fmt.Sprintf("v1.%x", md5.Sum([]byte("hpa-replicas/"+r))), fmt.Sprintf("v1.%x", md5.Sum([]byte(ns+"/"+r))))
	}
	path := filepath.Join(dir, "live-"+ns+".yaml")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "hpa-replicas", ns)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// copyPackage copies fixtures/packages/hpa-web into dir: its config directory and values file.
func copyPackage(t *testing.T, dir string) (config, values string) {
	t.Helper()
	pkg := filepath.Join("..", "..", "fixtures", "packages", "hpa-web")
	config = filepath.Join(dir, "config")
	for _, f := range []string{"app.yml", "schema.yml"} {
		copyTo(t, filepath.Join(pkg, "config", f), config, f)
	}
	return config, copyTo(t, filepath.Join(pkg, "values.yml"), dir, "values.yml")
}

// A package's rules follow the install namespace, so a capture of another namespace gives the same
// rules: the file is not stale (it was, only because the rules' comments named
// apps/Deployment hpa-replicas/web where the regenerated ones named prod/web). A rule changed
// still is.
func TestPackageRulesCheckedInAnotherNamespaceAreNotStale(t *testing.T) {
	dir := t.TempDir()
	config, values := copyPackage(t, dir)
	rules := filepath.Join(config, "rebase-rules.yml")
	r := rebasegen(t, "generate", "--package", config, "--values", values, "-l", scenario(t, "hpa-replicas")[3], "-n", "hpa-replicas", "--output-file", rules)
	if r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	check := []string{"check", "--package", config, "--values", values, "-l", liveIn(t, dir, "prod"), "-n", "prod", "--rules", rules}
	if r := rebasegen(t, check...); r.code != 0 || !strings.Contains(r.stdout, " 0 stale generated files") {
		t.Errorf("check in namespace prod: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rules, []byte(strings.Replace(string(data), "revisionHistoryLimit|", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := rebasegen(t, check...); r.code != exitPending || !strings.Contains(r.stdout, "stale: "+rules+" would change") {
		t.Errorf("a rule edited: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// generate with a wrong -n where only the cluster-scoped objects pair (a CRD beside its custom
// resource) is an error saying which -n pairs the rest, first, and writes nothing: it wrote the
// CRD's rules alone, exited 0, and printed the "did you mean -n" hints after its summary.
func TestGenerateWrongNamespaceWhereOnlyClusterScopedObjectsPair(t *testing.T) {
	fix := scenario(t, "crd-defaults")
	fix[5] = "wrong"
	out := filepath.Join(t.TempDir(), "rules.yml")
	r := rebasegen(t, append([]string{"generate", "--output-file", out}, fix...)...)
	want := "rebasegen: did you mean -n crd-defaults? No namespaced desired object pairs with a live object (1 unpaired), so nothing was compared for them:\n" +
		"  crd-defaults.rebasegen.dev/Backup wrong/nightly (the live objects hold it in namespace crd-defaults: did you mean -n crd-defaults?)\n"
	if r.code != exitError || r.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", r.code, r.stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written (%v)", out, err)
	}
	// the right namespace pairs both
	fix[5] = "crd-defaults"
	if r := rebasegen(t, append([]string{"generate", "--output-file", out}, fix...)...); r.code != 0 || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("-n crd-defaults: exit %d\n%s", r.code, r.stderr)
	}
}
