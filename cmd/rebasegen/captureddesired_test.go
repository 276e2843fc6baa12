package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// A capture's desired.yaml given as --live (the wrong file of the capture directory) is refused by
// every command taking --live, naming the file and what to pass: it is what kapp last applied,
// recovered from the live objects, and judged as the live objects it showed no default, so
// generate wrote 1 rule of the 13 the live objects needed and verified it, exit 0 (newcomer16
// N16-3). It is known by capture's header with no object carrying a uid or resourceVersion. As
// --desired, beside the directory as --live, it is read as before, and the warning about live
// objects without managedFields does not send the user to rebasegen capture for the ones capture
// read. Oracle: hand-read expectations (exit statuses, the message's parts).
func TestCapturedDesiredIsNotLive(t *testing.T) {
	fixture := filepath.Join("..", "..", "fixtures", "hpa-replicas")
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(fixture, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// what kapp applied, as capture recovers it: each object in its namespace
	desired := strings.ReplaceAll(read("desired.yaml"), "\nmetadata:\n  name: web\n", "\nmetadata:\n  name: web\n  namespace: hpa-replicas\n")
	if strings.Count(desired, "namespace: hpa-replicas") != 2 {
		t.Fatalf("no test: the recovered objects are not namespaced:\n%s", desired)
	}
	var unmanaged []string // the live objects as a server that keeps no managedFields returns them
	for _, doc := range strings.Split(read("live.yaml"), "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
			continue
		}
		delete(obj["metadata"].(map[string]any), "managedFields")
		out, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		unmanaged = append(unmanaged, string(out))
	}
	live := "---\n" + strings.Join(unmanaged, "---\n")
	dir := t.TempDir()
	for name, data := range map[string]string{"desired.yaml": capturedFile("---\n" + desired), "live.yaml": capturedFile(live), "server-version.json": read("server-version.json")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifests, rules := filepath.Join(fixture, "desired.yaml"), filepath.Join("..", "..", "fixtures", "lint", "hpa-replicas-all-deployments", "rules.yml")
	asLive := filepath.Join(dir, "desired.yaml")
	for _, args := range [][]string{
		{"explain", "-d", manifests, "-l", asLive},
		{"generate", "-d", manifests, "-l", asLive},
		{"check", "-d", manifests, "-l", asLive, "-r", rules},
		{"lint", "-d", manifests, "-l", asLive, "-r", rules},
	} {
		r := rebasegen(t, args...)
		checkRejected(t, strings.Join(args, " "), r, "--live "+asLive+": rebasegen capture's desired.yaml",
			"pass the capture's directory (--live "+dir+") or its live.yaml (--live "+filepath.Join(dir, "live.yaml")+")")
	}

	r := rebasegen(t, "explain", "-d", asLive, "-l", dir)
	if r.code != 0 || !strings.Contains(r.stderr, "2 of 2 live objects carry no metadata.managedFields") || strings.Contains(r.stderr, "or rebasegen capture") {
		t.Errorf("explain -d %s -l %s: exit %d, want 0 and a warning that does not advise rebasegen capture:\n%s", asLive, dir, r.code, r.stderr)
	}
	plain := filepath.Join(t.TempDir(), "live.yaml") // kubectl get without --show-managed-fields
	if err := os.WriteFile(plain, []byte(live), 0o644); err != nil {
		t.Fatal(err)
	}
	r = rebasegen(t, "explain", "-d", manifests, "-l", plain, "--server-version", "v1.37.2")
	if r.code != 0 || !strings.Contains(r.stderr, "--show-managed-fields (kubectl leaves them out by default) or rebasegen capture") {
		t.Errorf("explain -l %s (no managedFields, not captured): exit %d, want 0 and the advice to read them again:\n%s", plain, r.code, r.stderr)
	}
}
