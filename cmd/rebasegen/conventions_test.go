package main

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
)

// builtCLI is the binary buildCLI builds, once for the package's tests: linking the whole command
// is the most expensive set-up here (four builds took as long as the rest of the package under
// CI's load), and every caller wants the same binary. TestMain removes its directory.
var builtCLI struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildCLI is the rebasegen binary built with a version stamped in, as `make build` does.
func buildCLI(t *testing.T) string {
	t.Helper()
	builtCLI.once.Do(func() {
		if builtCLI.dir, builtCLI.err = os.MkdirTemp("", "rebasegen-cli-"); builtCLI.err != nil {
			return
		}
		bin := filepath.Join(builtCLI.dir, "rebasegen")
		if out, err := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7-test", "-o", bin, ".").CombinedOutput(); err != nil {
			builtCLI.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		builtCLI.bin = bin
	})
	if builtCLI.err != nil {
		t.Fatal(builtCLI.err)
	}
	return builtCLI.bin
}

// removeBuiltCLI removes what buildCLI built, if it built anything.
func removeBuiltCLI() {
	if builtCLI.dir != "" {
		os.RemoveAll(builtCLI.dir)
	}
}

// `version` and `--version` print the stamped version and, for each embedded module, the version
// the binary's build info records (read from the file by debug/buildinfo, not by the program).
func TestVersion(t *testing.T) {
	bin := buildCLI(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rebasegen": "v9.8.7-test", "go": info.GoVersion}
	for _, e := range embedded {
		for _, d := range info.Deps {
			if d.Path == e.module {
				want[e.name] = d.Version
			}
		}
		if want[e.name] == "" {
			t.Fatalf("%s is not in the build info", e.module)
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-q", "version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("rebasegen %v: %v", args, err)
		}
		got := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(l); len(f) == 2 {
				got[f[0]] = f[1]
			}
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("rebasegen %v: %s %q, want %q\n%s", args, k, got[k], v, out)
			}
		}
	}
}

// The bash script completes through the binary itself: `rebasegen ex<TAB>` and
// `rebasegen generate --for<TAB>` in a real bash.
func TestCompletion(t *testing.T) {
	bin := buildCLI(t)
	script := filepath.Join(t.TempDir(), "rebasegen.bash")
	out, err := exec.Command(bin, "completion", "bash").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, out, 0o644); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) []string {
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		cmd := exec.Command("bash", "-c", `source "$1"; COMP_WORDS=(`+strings.Join(quoted, " ")+`); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _rebasegen_complete; printf '%s\n' "${COMPREPLY[@]}"`, "bash", script)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash completion of %v: %v", words, err)
		}
		return strings.Fields(string(out))
	}
	if got := complete("rebasegen", "ex"); !slices.Equal(got, []string{"explain"}) {
		t.Errorf("rebasegen ex<TAB>: %q, want [explain]", got)
	}
	if got := complete("rebasegen", "generate", "--for"); !slices.Contains(got, "--format") || !slices.Contains(got, "--force") {
		t.Errorf("rebasegen generate --for<TAB>: %q, want --format and --force", got)
	}

	for shell, marks := range map[string][]string{
		"zsh":  {"#compdef rebasegen", "--generate-bash-completion"},
		"fish": {"complete -c rebasegen", "-a 'generate'", "-l output-file"},
	} {
		out, err := exec.Command(bin, "completion", shell).Output()
		if err != nil {
			t.Fatalf("completion %s: %v", shell, err)
		}
		for _, m := range marks {
			if !strings.Contains(string(out), m) {
				t.Errorf("completion %s: no %q in\n%s", shell, m, out)
			}
		}
		if sh, err := exec.LookPath(shell); err == nil {
			if out, err := exec.Command(sh, "-n", "/dev/stdin").CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		}
	}
	if r := rebasegen(t, "completion", "tcsh"); r.code != exitError || !strings.Contains(r.stderr, `want bash, zsh or fish, got "tcsh"`) {
		t.Errorf("completion tcsh: exit %d, %q", r.code, r.stderr)
	}
}

// Every command's help shows an example and its exit statuses, wrapped to the width; the example
// runs (with a captured scenario's files for the placeholders) and exits with a status it lists.
func TestHelp(t *testing.T) {
	t.Setenv("COLUMNS", "72")
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(t.TempDir(), "rebase-rules.yml")
	placeholders := strings.NewReplacer("desired.yaml", fix[1], "live.yaml", fix[3], "my-namespace", fix[5], "rebase-rules.yml", rules)
	for _, name := range []string{"explain", "generate", "check", "lint", "capture", "version", "completion"} { // generate before check and lint: they read its rules
		t.Run(name, func(t *testing.T) {
			r := rebasegen(t, name, "--help")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			for _, l := range strings.Split(r.stdout, "\n") {
				if n := utf8.RuneCountInString(l); n > 72 && strings.Contains(strings.TrimSpace(l), " ") {
					t.Errorf("help line of %d columns, want at most 72: %q", n, l)
				}
			}
			example, statuses, ok := helpSections(r.stdout)
			if !ok || len(example) == 0 || len(statuses) == 0 {
				t.Fatalf("help has no Example and Exit status sections:\n%s", r.stdout)
			}
			if name == "capture" || name == "completion" {
				return // needs a cluster; a shell
			}
			args := strings.Fields(placeholders.Replace(example[0]))
			if args[0] != "rebasegen" || args[1] != name {
				t.Fatalf("example %q does not run rebasegen %s", example[0], name)
			}
			got := rebasegen(t, args[1:]...)
			if !slices.Contains(statuses, got.code) {
				t.Errorf("example %q exited %d, not a listed status %v\n%s", example[0], got.code, statuses, got.stderr)
			}
		})
	}
}

// helpSections reads the example lines (unwrapped) and the exit statuses from a command's help.
func helpSections(help string) (example []string, statuses []int, ok bool) {
	_, rest, ok := strings.Cut(help, "Example:\n")
	if !ok {
		return nil, nil, false
	}
	ex, rest, ok := strings.Cut(rest, "\n\n")
	for _, l := range strings.Split(ex, "\n") {
		if strings.HasPrefix(l, "     ") && !strings.HasPrefix(strings.TrimSpace(l), "rebasegen") && len(example) > 0 {
			example[len(example)-1] += " " + strings.TrimSpace(l) // a wrapped continuation
		} else {
			example = append(example, strings.TrimSpace(l))
		}
	}
	_, rest, ok2 := strings.Cut(rest, "Exit status:\n")
	st, _, _ := strings.Cut(rest, "\n\n")
	for _, l := range strings.Split(st, "\n") {
		var code int
		if f := strings.Fields(l); len(f) > 0 && len(f[0]) == 1 && f[0][0] >= '0' && f[0][0] <= '9' {
			code = int(f[0][0] - '0')
			statuses = append(statuses, code)
		}
	}
	return example, statuses, ok && ok2
}

// explain's text fits a terminal's width by moving evidence to a line of its own; without a
// width (a file or pipe) every row keeps its evidence on the row.
func TestExplainTextWidth(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	rep, _, err := generator.Explain(generator.Inputs{Desired: []string{fix[1]}, Live: []string{fix[3]}, Namespace: fix[5]})
	if err != nil {
		t.Fatal(err)
	}
	var full, narrow strings.Builder
	if err := emit.WriteExplainText(&full, rep, emit.Palette{}, 0); err != nil {
		t.Fatal(err)
	}
	if err := emit.WriteExplainText(&narrow, rep, emit.Palette{On: true}, 100); err != nil {
		t.Fatal(err)
	}
	wide := 0
	for _, l := range strings.Split(full.String(), "\n") {
		wide = max(wide, utf8.RuneCountInString(l))
	}
	if wide <= 100 {
		t.Fatalf("the scenario's widest explain line is %d columns: pick one with wider lines", wide)
	}
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(narrow.String(), "")
	for _, l := range strings.Split(plain, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 && strings.Contains(strings.TrimSpace(l), " ") {
			t.Errorf("line of %d columns at width 100: %q", n, l)
		}
	}
	// the same words, only the layout differs
	if a, b := strings.Fields(full.String()), strings.Fields(plain); !slices.Equal(a, b) {
		t.Errorf("narrow output has other words than the full one:\n%s\n---\n%s", full.String(), plain)
	}
}
