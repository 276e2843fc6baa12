package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// hostile is a name holding what must never reach an output raw: a line break followed by a
// GitHub workflow command, terminal escape sequences (OSC: set the title; CSI: clear the
// screen), GitHub's legacy command prefix, a zero-width space and a command after a space (where
// a wrapped line may start).
const hostile = "web\n::error file=README.md,line=1::INJECTED \x1b]0;pwned\x07\x1b[2J ##[error]legacy z\u200bw ::warning::spaced"

// hostileYAML is hostile as a YAML double-quoted scalar.
const hostileYAML = `"web\n::error file=README.md,line=1::INJECTED \x1b]0;pwned\x07\x1b[2J ##[error]legacy z\u200bw ::warning::spaced"`

// hostileFixture is controller-filled-data with the Secret's name and cert-manager's manager name
// replaced by hostile: a controller-owned finding (explain's class column names the manager)
// on an object with a hostile name.
func hostileFixture(t *testing.T) (desired, live, ns string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"desired.yaml", "live.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "controller-filled-data", f))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(data), "  name: web-tls\n", "  name: "+hostileYAML+"\n")
		s = strings.ReplaceAll(s, "    manager: cert-manager\n", "    manager: "+hostileYAML+"\n")
		if s == string(data) {
			t.Fatalf("%s: nothing replaced", f)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "desired.yaml"), filepath.Join(dir, "live.yaml"), "controller-filled-data"
}

// assertEscaped fails when out holds a raw control, format or separator character, a line a
// GitHub runner would read as a workflow command (other than github's own annotations), or
// GitHub's legacy command prefix.
func assertEscaped(t *testing.T, what, out string, github bool) {
	t.Helper()
	for _, r := range out {
		if r != '\n' && (unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)) {
			t.Errorf("%s: raw %U in the output:\n%s", what, r, out)
			return
		}
	}
	for _, l := range strings.Split(out, "\n") {
		cmd := strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::")
		command := strings.HasPrefix(l, "::error file=") || strings.HasPrefix(l, "::warning file=") || strings.HasPrefix(l, "::warning::") || strings.HasPrefix(l, "::notice::check: ")
		if cmd && !(github && command) || strings.Contains(l, "##[") {
			t.Errorf("%s: a line a GitHub runner reads as a workflow command: %q", what, l)
		}
	}
}

// TestOutputEscapesHostileNames (issue 23, output injection): an object name and a manager name
// holding a line break plus a workflow command, terminal escape sequences and a zero-width
// space reach no output raw, in every command and every format; JSON keeps them exactly.
func TestOutputEscapesHostileNames(t *testing.T) {
	desired, live, ns := hostileFixture(t)
	in := []string{"-d", desired, "-l", live, "-n", ns}
	shown := `INJECTED \x1b]0;pwned\a\x1b[2J #\x23[error]legacy z\u200bw \x3a:warning::spaced` // how text shows the name

	// explain's text laid out for 80 columns (a pipe), wrapped lines included
	assertEscaped(t, "explain (80 columns)", rebasegen(t, append([]string{"explain"}, in...)...).stdout, false)
	for _, format := range []string{"text", "json"} {
		r := rebasegen(t, append([]string{"explain", "--wide", "-o", format}, in...)...)
		if r.code != 0 {
			t.Fatalf("explain -o %s: exit %d\n%s", format, r.code, r.stderr)
		}
		assertEscaped(t, "explain -o "+format+" (stderr)", r.stderr, false)
		if format == "json" {
			var rep struct{ Resources []struct{ Name string } }
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, res := range rep.Resources {
				found = found || res.Name == hostile
			}
			if !found {
				t.Errorf("explain -o json: the name is not kept exactly:\n%s", r.stdout)
			}
			continue
		}
		assertEscaped(t, "explain -o text", r.stdout, false)
		if !strings.Contains(r.stdout, shown) || !strings.Contains(r.stdout, `controller:web\n::error file=README.md,line=1::INJECTED \x1b]0;pwned`) {
			t.Errorf("explain: the name or the class column's manager not shown escaped:\n%s", r.stdout)
		}
	}

	rules := filepath.Join(t.TempDir(), "rules.yml")
	for _, format := range []string{"config", "ytt", "secret"} {
		// kapp's association label no longer matches the renamed Secret: a residual diff, hence --force
		args := append([]string{"generate", "--force", "-o", format, "--output-file", rules}, in...)
		if format == "secret" {
			args = append(args, "--package-install", "web")
		}
		r := rebasegen(t, args...)
		if r.code != exitPending {
			t.Fatalf("generate -o %s: exit %d\n%s", format, r.code, r.stderr)
		}
		data, err := os.ReadFile(rules)
		if err != nil {
			t.Fatal(err)
		}
		assertEscaped(t, "generate -o "+format, string(data), false)
		assertEscaped(t, "generate -o "+format+" (stderr)", r.stderr, false)
		if !strings.Contains(string(data), `z\u200bw`) {
			t.Errorf("generate -o %s: the name not shown escaped in a comment:\n%s", format, data)
		}
	}

	none := filepath.Join(t.TempDir(), "none.yml")
	if err := os.WriteFile(none, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "github", "json"} {
		r := rebasegen(t, append([]string{"check", "-o", format, "--rules", none}, in...)...)
		if r.code != exitPending {
			t.Fatalf("check -o %s: exit %d, want %d\n%s%s", format, r.code, exitPending, r.stdout, r.stderr)
		}
		assertEscaped(t, "check -o "+format+" (stderr)", r.stderr, false)
		if format == "json" {
			if !strings.Contains(r.stdout, `web\n::error file=README.md`) {
				t.Errorf("check -o json: the name not JSON-encoded:\n%s", r.stdout)
			}
			continue
		}
		assertEscaped(t, "check -o "+format, r.stdout, format == "github")
		if !strings.Contains(r.stdout, shown) {
			t.Errorf("check -o %s: the name not shown escaped:\n%s", format, r.stdout)
		}
	}
}

// TestLintEscapesHostileFileNames (issue 23, output injection): a rule file's name holding a
// workflow command and terminal escapes reaches lint's text and GitHub output escaped.
func TestLintEscapesHostileFileNames(t *testing.T) {
	data, err := os.ReadFile(lintFixture("invalid-type"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "::error::r\x1b]0;t\x07 ##[x]\u200b.yml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "github", "json"} {
		r := rebasegen(t, "lint", "-o", format, "--rules", file)
		if r.code != exitLint {
			t.Fatalf("lint -o %s: exit %d\n%s", format, r.code, r.stderr)
		}
		assertEscaped(t, "lint -o "+format, r.stdout+r.stderr, format == "github")
		if format == "text" && !strings.Contains(r.stdout, `::error::r\x1b]0;t\a #\x23[x]\u200b.yml:8: error:`) {
			t.Errorf("lint: the file name not shown escaped:\n%s", r.stdout)
		}
	}
}
