package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrayArguments (issue 23): a positional argument is an error naming it, in every command:
// `check --rules *.yml` gave check the first file only and ignored the rest, exit 0.
func TestStrayArguments(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yml"), filepath.Join(dir, "b.yml")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out.yml")
	for _, tc := range []struct {
		args       []string
		stray      string
		hint       string // "" when no hint about a flag applies
		hasOutFile bool
	}{
		{append([]string{"check"}, append(fix, "--rules", a, b)...), b, "--rules takes one value: repeat it for each (--rules " + a + " --rules " + b + ")", false},
		{append([]string{"check", "--rules=" + a, b}, fix...), b, "--rules takes one value: repeat it for each (--rules " + a + " --rules " + b + ")", false},
		{append([]string{"check", "--rules", a, b}, fix...), b, "--rules takes one value", false}, // the required --live follows it, unread
		{append([]string{"explain"}, append(fix, "extra")...), "extra", "", false},
		{append([]string{"generate", "--output-file", out}, append(fix, "extra")...), "extra", "", true},
		{[]string{"lint", a, b}, a, "", false},
		{[]string{"version", "x"}, "x", "", false},
		{[]string{"completion", "bash", "zsh"}, "zsh", "", false},
		{[]string{"capture", "--app", "x", "--output-directory", dir, "y"}, "y", "", false},
	} {
		r := rebasegen(t, tc.args...)
		want := `unexpected argument "` + tc.stray + `"`
		if r.code != exitError || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, tc.hint) || strings.Count(r.stderr, "\n") > 2 {
			t.Errorf("rebasegen %v: exit %d, want %d and at most two lines saying %q and %q:\n%s", tc.args, r.code, exitError, want, tc.hint, r.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("rebasegen %v wrote %s", tc.args, out)
		}
	}
	if r := rebasegen(t, "completion", "bash"); r.code != 0 || !strings.Contains(r.stdout, "complete -o") {
		t.Errorf("completion bash: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCompletionOnlyWhenAsked (issue 23): a last argument --generate-bash-completion, which a
// value from an untrusted input can be, made check print its flags and exit 0 without checking;
// completion mode is for the completion scripts only, which set REBASEGEN_COMPLETION=1.
func TestCompletionOnlyWhenAsked(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	for _, args := range [][]string{
		append(append([]string{"check"}, fix...), "--rules", "--generate-bash-completion"),
		append(append([]string{"check", "--rules", "../../fixtures/hpa-replicas/desired.yaml"}, fix...), "--generate-bash-completion"),
		{"explain", "--generate-bash-completion"},
	} {
		r := rebasegen(t, args...)
		if r.code != exitError || !strings.Contains(r.stderr, "generate-bash-completion") {
			t.Errorf("rebasegen %v: exit %d, want %d naming --generate-bash-completion:\n%s", args, r.code, exitError, r.stderr)
		}
	}
	// urfave/cli's completion reads os.Args: run the binary
	cmd := exec.Command(buildCLI(t), "generate", "--output-f", "--generate-bash-completion")
	cmd.Env = append(os.Environ(), completionEnv+"=1")
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "--output-file") {
		t.Errorf("asked by a completion script: %v, want the flags:\n%s", err, out)
	}
}
