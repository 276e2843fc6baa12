//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rebasegenWithin is rebasegen, failing the test instead of hanging.
func rebasegenWithin(t *testing.T, args ...string) result {
	t.Helper()
	done := make(chan result, 1)
	go func() { done <- rebasegen(t, args...) }()
	select {
	case r := <-done:
		return r
	case <-time.After(60 * time.Second):
		t.Fatalf("rebasegen %v did not return within 60s", args)
		return result{}
	}
}

// TestEveryReadBounded (issue 23): no input flag reads a device or waits on a pipe it found: a
// rules directory holding a symlink to /dev/zero was read until the process ran out of memory,
// and a named pipe inside a --desired or --package directory hung the run.
func TestEveryReadBounded(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	live, ns := fix[3], fix[5]
	dir := t.TempDir()
	mkdir := func(name string, files map[string]string) string {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, target := range files {
			var err error
			switch {
			case target == "fifo":
				err = syscall.Mkfifo(filepath.Join(d, f), 0o600)
			case strings.HasPrefix(target, "/"):
				err = os.Symlink(target, filepath.Join(d, f))
			default:
				var data []byte
				if data, err = os.ReadFile(target); err == nil {
					err = os.WriteFile(filepath.Join(d, f), data, 0o644)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	pkg := filepath.Join("..", "..", "fixtures", "packages", "hpa-web")
	rules := mkdir("rules", map[string]string{"a.yml": fix[1], "zero.yml": "/dev/zero"})
	desired := mkdir("desired", map[string]string{"desired.yaml": fix[1], "pipe.yaml": "fifo"})
	config := mkdir("config", map[string]string{"app.yml": filepath.Join(pkg, "config", "app.yml"),
		"schema.yml": filepath.Join(pkg, "config", "schema.yml"), "pipe.yml": "fifo"})
	for _, tc := range []struct {
		args       []string
		name, want string
	}{
		{[]string{"check", "--rules", rules, "-d", fix[1], "-l", live, "-n", ns}, "zero.yml", "a device, not a regular file"},
		{[]string{"lint", "--rules", rules}, "zero.yml", "a device, not a regular file"},
		{[]string{"explain", "-d", desired, "-l", live, "-n", ns}, "pipe.yaml", "a named pipe in a directory"},
		{[]string{"explain", "--package", config, "-l", live, "-n", ns}, "pipe.yml", "a named pipe in a directory"},
		{[]string{"explain", "--package", filepath.Join(pkg, "config"), "--values", rules, "-l", live, "-n", ns}, "zero.yml", "symlinks are disallowed"}, // ytt's refusal
		{[]string{"check", "--rules", "/dev/zero", "-d", fix[1], "-l", live, "-n", ns}, "--rules /dev/zero", "a device, not a regular file"},
		{[]string{"explain", "--crd", "/dev/zero", "-d", fix[1], "-l", live, "-n", ns}, "--crd /dev/zero", "a device, not a regular file"},
		{[]string{"explain", "--ruleset", "/dev/zero", "-d", fix[1], "-l", live, "-n", ns}, "--ruleset /dev/zero", "a device, not a regular file"},
		{[]string{"explain", "--package-cr", "/dev/zero", "-l", live, "-n", ns}, "--package-cr /dev/zero", "a device, not a regular file"},
	} {
		r := rebasegenWithin(t, tc.args...)
		checkRejected(t, strings.Join(tc.args[:3], " "), r, tc.name, tc.want)
	}
}

// TestRulesFromProcessSubstitution (issue 23): --rules <(cmd) was drained by sniffing its format,
// then read as no rules (check reported every ghost diff the rules remove); a pipe named on the
// command line is read once and that data used by every reader (rules, lint, staleness).
func TestRulesFromProcessSubstitution(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	bin := buildCLI(t)
	for _, format := range []string{"text", "json"} {
		cmd := exec.Command(bash, append([]string{"-c", `"$0" check --quiet -o ` + format + ` --rules <(cat "$1") "${@:2}"`, bin, rules}, fix...)...)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), "residual ghost diff:") && format == "text" || format == "json" && !strings.Contains(string(out), `"residual": []`) {
			t.Errorf("check -o %s --rules <(cat rules.yml): %v, want exit 0 and no residual ghost diff:\n%s", format, err, out)
		}
	}
}

// TestOutputFileThroughSymlink (issue 23): --output-file link/x.yml, link a symlink to the package
// directory, overwrote a template: paths were compared unresolved. Inputs and outputs are compared
// with every symlink resolved, both ways round.
func TestOutputFileThroughSymlink(t *testing.T) {
	fix, dir := scenario(t, "hpa-replicas"), t.TempDir()
	pkg, template := packageDir(t, dir, fix)
	data, err := os.ReadFile(template)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("config", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ input, out string }{
		{pkg, filepath.Join(link, "app.yaml")},        // the output through the link
		{link, template},                              // the input through the link
		{link + "/", filepath.Join(link, "app.yaml")}, // both
	} {
		r := rebasegen(t, "generate", "-d", tc.input, "-l", fix[3], "-n", fix[5], "--output-file", tc.out)
		checkRejected(t, "generate --output-file "+tc.out, r, "--output-file "+tc.out+": ", "that rebasegen did not generate")
		if after, _ := os.ReadFile(template); string(after) != string(data) {
			t.Fatalf("-d %s --output-file %s overwrote the template", tc.input, tc.out)
		}
	}
	// a new file through the link is the package's generated rules, as without the link
	out := filepath.Join(link, "rebase-rules.yml")
	if r := rebasegen(t, "generate", "-d", pkg, "-l", fix[3], "-n", fix[5], "--output-file", out); r.code != 0 {
		t.Errorf("a new file through the link: exit %d\n%s", r.code, r.stderr)
	}
}
