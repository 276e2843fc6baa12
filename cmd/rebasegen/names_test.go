package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/emit"
)

// TestNameFlagsAreKubernetesNames (issue 23): --package-install 'x; touch y #' was accepted and
// written unquoted into the kubectl annotate command generate suggests; names given as flags are
// validated as Kubernetes validates such names, before any work.
func TestNameFlagsAreKubernetesNames(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{append([]string{"generate", "-o", "secret", "--package-install", "x; touch y #"}, fix...), "--package-install"},
		{append([]string{"generate", "-o", "secret", "--package-install", "Upper"}, fix...), "--package-install"},
		{append([]string{"generate", "-o", "secret", "--package-install", strings.Repeat("a", 241)}, fix...), "--package-install"}, // its Secret's name would be too long
		{[]string{"explain", "-d", fix[1], "-l", fix[3], "-n", "ns;id"}, "--namespace"},
		{[]string{"check", "--rules", fix[1], "-d", fix[1], "-l", fix[3], "-n", "a.b"}, "--namespace"}, // a subdomain, not a label
		{[]string{"capture", "--package-install", "$(id)", "--output-directory", dir}, "--package-install"},
		{[]string{"capture", "--app", "a b", "--output-directory", dir}, "--app"},
	} {
		r := rebasegen(t, tc.args...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.flag+" ") || !strings.Contains(r.stderr, "not a valid Kubernetes name") || r.stdout != "" {
			t.Errorf("rebasegen %v: exit %d, want %d naming %s as not a valid Kubernetes name:\n%s%s", tc.args, r.code, exitError, tc.flag, r.stdout, r.stderr)
		}
	}
	if r := rebasegen(t, append([]string{"generate", "-o", "secret", "--package-install", "my-pkg.v1"}, fix...)...); r.code != 0 {
		t.Errorf("a valid --package-install: exit %d:\n%s", r.code, r.stderr)
	}
}

// TestSuggestedCommandIsQuoted (issue 23): names reach the suggested kubectl command as single
// shell words, whatever they hold (emit is a library too: its callers need not validate them).
func TestSuggestedCommandIsQuoted(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	pi, ns := "x; touch y #'", "n $(id) `id`"
	var out strings.Builder
	if err := emit.WriteRules(&out, nil, emit.Header{Options: emit.Options{Format: emit.FormatSecret, PackageInstall: pi, Namespace: ns}}); err != nil {
		t.Fatal(err)
	}
	_, line, ok := strings.Cut(out.String(), "#!   kubectl annotate packageinstall ")
	if !ok {
		t.Fatalf("no kubectl annotate command in\n%s", out.String())
	}
	line, _, _ = strings.Cut(line, "\n")
	// the shell splits it into words; printf prints each on a line of its own
	cmd := exec.Command(sh, "-c", `printf '%s\n' `+line)
	cmd.Dir = t.TempDir() // unquoted, the names ran commands: touch y
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	want := []string{pi, "-n", ns, "ext.packaging.carvel.dev/ytt-paths-from-secret-name.0=" + pi + "-rebase-rules"}
	if words := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n"); !slices.Equal(words, want) {
		t.Errorf("the shell reads %q as\n%q, want\n%q", line, words, want)
	}
}
