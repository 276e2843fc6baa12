package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
)

// withStdin runs f with os.Stdin reading data.
func withStdin(t *testing.T, data string, f func()) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	stdin := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = stdin }()
	f()
}

// TestEveryFileFlagReadsStdin (issue 23): --ruleset - and --package-cr - panicked (their reader
// had no stdin); they read stdin as every file flag does, and give the result reading the file
// gives; stdin given to two flags is refused.
func TestEveryFileFlagReadsStdin(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	pkg := filepath.Join("..", "..", "fixtures", "packages", "hpa-web")
	ruleset := filepath.Join(t.TempDir(), "ruleset.yaml")
	if err := os.WriteFile(ruleset, []byte("appliers:\n- name: team-deployer\n  source: the team's deploy job\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cr := filepath.Join(pkg, "package.yml")
	values := []string{"--values", filepath.Join(pkg, "values.yml"), "-l", fix[3], "-n", fix[5]}
	for _, tc := range []struct {
		flag, file string
		args       []string
	}{
		{"--ruleset", ruleset, fix},
		{"--package-cr", cr, values},
	} {
		want := rebasegen(t, append([]string{"explain", tc.flag, tc.file}, tc.args...)...)
		if want.code != 0 {
			t.Fatalf("explain %s %s: exit %d\n%s", tc.flag, tc.file, want.code, want.stderr)
		}
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		withStdin(t, string(data), func() {
			got := rebasegen(t, append([]string{"explain", tc.flag, "-"}, tc.args...)...)
			if got.code != 0 || got.stdout != want.stdout {
				t.Errorf("explain %s - (stdin): exit %d, want 0 and the output of %s %s:\n%s\n%s", tc.flag, got.code, tc.flag, tc.file, got.stdout, got.stderr)
			}
		})
		withStdin(t, string(data), func() {
			got := rebasegen(t, append([]string{"explain", tc.flag, "-", "-d", "-"}, tc.args...)...)
			if got.code != exitError || !strings.Contains(got.stderr, "- (stdin) can be read only once") || !strings.Contains(got.stderr, tc.flag+" -") {
				t.Errorf("explain %s - -d -: exit %d, want %d naming both:\n%s", tc.flag, got.code, exitError, got.stderr)
			}
		})
	}
}

// TestREADMEStatesReads: the README's "bad input" paragraph says how inputs are read, with the
// limit the reader enforces (issue 23).
func TestREADMEStatesReads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(data)), " ")
	for _, want := range []string{
		"Every input is read by one reader",
		fmt.Sprintf("stdin (`-`, for one flag only) and a pipe named on the command line (`--rules <(cmd)`, `/dev/fd/N`) are read once, within %d MiB", load.MaxFileSize>>20),
		"devices, sockets and pipes found in directories are refused, as a path or through a symlink",
		"Every path is resolved through its symlinks before it is compared with `--output-file`",
		"An argument that is no flag's value is an error naming it",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}

// TestEmptyStdinIsAnError (issue 23): empty stdin (a pipeline whose first command failed) was read
// as an empty ruleset, no values, no CRDs or no rules, and the command went on. It is an error
// naming the flag, whichever flag reads it, as it was for --desired and --live.
func TestEmptyStdinIsAnError(t *testing.T) {
	fix := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	pkg := filepath.Join("..", "..", "fixtures", "packages", "hpa-web")
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"--ruleset", append([]string{"explain"}, fix...)},
		{"--crd", append([]string{"explain"}, fix...)},
		{"--values", []string{"explain", "--package", filepath.Join(pkg, "config"), "-l", fix[3], "-n", fix[5]}},
		{"--package-cr", []string{"explain", "-l", fix[3], "-n", fix[5]}},
		{"--rules", append([]string{"check"}, fix...)},
		{"--live", []string{"explain", "-d", fix[1], "-n", fix[5]}},
	} {
		for _, stdin := range []string{"", " \n\n"} {
			withStdin(t, stdin, func() {
				r := rebasegen(t, append(tc.args, tc.flag, "-")...)
				if want := tc.flag + " - (stdin): empty input"; r.code != exitError || !strings.Contains(r.stderr, want) || r.stdout != "" {
					t.Errorf("%s - with stdin %q: want exit %d and %q, got %d:\n%s%s", tc.flag, stdin, exitError, want, r.code, r.stdout, r.stderr)
				}
			})
		}
	}
}
