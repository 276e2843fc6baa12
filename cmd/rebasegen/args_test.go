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

// A file given without its flag is named with the flag its content is for, and the command the
// hint proposes runs (newcomer7 N7-7: the glob hint "-l live.yaml -l rules.yml" for a forgotten
// --rules failed on the Config given as live objects; `lint rules.yml` and `explain desired.yaml`
// got the space-quoting hint). The quoting hint stays for a value whose tail became the argument.
func TestStrayFileNamesItsFlag(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	desired, live, ns := fix[1], fix[3], fix[5]
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append(append([]string{"generate"}, fix...), "--output-file", rules)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	spaced := filepath.Join(dir, "my desired.yaml")
	copyTo(t, desired, dir, "my desired.yaml")
	for _, tc := range []struct {
		args  []string
		hint  string
		fixed []string // the command the hint proposes, which must succeed
	}{
		{[]string{"check", "-d", desired, "-l", live, "-n", ns, rules}, "did you mean --rules " + rules + "?",
			[]string{"check", "-d", desired, "-l", live, "-n", ns, "--rules", rules}},
		{[]string{"generate", "-d", desired, "-l", live, "-n", ns, rules}, "did you mean --output-file " + rules + "?",
			[]string{"generate", "-d", desired, "-l", live, "-n", ns, "--output-file", rules}},
		{[]string{"lint", rules}, "did you mean --rules " + rules + "?", []string{"lint", "--rules", rules}},
		{[]string{"explain", desired, "-l", live, "-n", ns}, "did you mean -d " + desired + "?",
			[]string{"explain", "-d", desired, "-l", live, "-n", ns}},
		{[]string{"explain", "-d", desired, "-l", live, "-n", ns, rules}, rules + " holds kapp Configs, which explain does not read", nil},
		{[]string{"explain", "-l", live, "-n", ns, "-d", filepath.Join(dir, "my"), "desired.yaml"}, "quote a value that holds spaces (-d '" + spaced + "')",
			[]string{"explain", "-l", live, "-n", ns, "-d", spaced}},
	} {
		r := rebasegen(t, tc.args...)
		if r.code != exitError || !strings.Contains(r.stderr, "\nhint: "+tc.hint) || r.stdout != "" {
			t.Errorf("rebasegen %v: exit %d, want %d with the hint %q:\n%s", tc.args, r.code, exitError, tc.hint, r.stderr)
		}
		if tc.fixed != nil {
			if r := rebasegen(t, tc.fixed...); r.code != 0 {
				t.Errorf("rebasegen %v, as the hint proposes: exit %d\n%s", tc.fixed, r.code, r.stderr)
			}
		}
	}
}

// A capture directory given without its -l is named with -l, as -d DIR names --live, by check,
// generate and explain alike, and the command the hint proposes runs. Before, the hint followed
// the flag before it: "repeat --values (--values values.yml --values ci/live)", a capture
// directory sent to a data values flag (newcomer17 N17-4, issue 24).
func TestStrayCaptureDirectoryIsLive(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	desired, ns := fix[1], fix[5]
	dir := t.TempDir()
	config, values := copyPackage(t, dir)
	live := filepath.Join(dir, "ci", "live")
	copyTo(t, fix[3], live, "live.yaml")
	copyTo(t, filepath.Join(filepath.Dir(fix[3]), "server-version.json"), live, "server-version.json")
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "--package", config, "--values", values, "-l", live, "-n", ns, "--output-file", rules); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	hint := "\nhint: did you mean -l " + live + "? It is a directory rebasegen capture wrote (it holds server-version.json), and --live is missing\n"
	for _, tc := range []struct{ args, fixed []string }{
		{[]string{"check", "--package", config, "--values", values, live, "-n", ns, "-r", rules},
			[]string{"check", "--package", config, "--values", values, "-l", live, "-n", ns, "-r", rules}},
		{[]string{"generate", "-d", desired, live, "-n", ns}, nil},
		{[]string{"explain", "-n", ns, "-d", desired, live}, nil},
	} {
		r := rebasegen(t, tc.args...)
		if r.code != exitError || !strings.HasSuffix(r.stderr, hint) || r.stdout != "" {
			t.Errorf("rebasegen %v: exit %d, want %d with the hint %q:\n%s", tc.args, r.code, exitError, hint, r.stderr)
		}
		if tc.fixed != nil {
			if r := rebasegen(t, tc.fixed...); r.code != 0 {
				t.Errorf("rebasegen %v, as the hint proposes: exit %d\n%s%s", tc.fixed, r.code, r.stdout, r.stderr)
			}
		}
	}
}
