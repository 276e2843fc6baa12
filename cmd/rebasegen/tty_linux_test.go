package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal of cols columns: the program's side (a terminal to
// term.IsTerminal and term.GetSize) and the reader's side.
func openPTY(t *testing.T, cols int) (tty, reader *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: 50}); err != nil {
		t.Fatal(err)
	}
	return s, m
}

// rebasegenTTY runs the CLI as rebasegen does, with stdout (ttyOut) and/or stderr (ttyErr) a
// terminal of cols columns, the other a file; env is set for the run.
func rebasegenTTY(t *testing.T, cols int, ttyOut, ttyErr bool, env map[string]string, args ...string) result {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	type stream struct {
		f    *os.File
		read func() string
	}
	open := func(tty bool, name string) stream {
		if tty {
			s, m := openPTY(t, cols)
			var buf bytes.Buffer
			done := make(chan struct{})
			go func() { _, _ = io.Copy(&buf, m); close(done) }() // ends with EIO once s is closed
			return stream{s, func() string {
				s.Close()
				<-done
				m.Close()
				return strings.ReplaceAll(buf.String(), "\r\n", "\n") // the terminal's line discipline adds \r
			}}
		}
		f, err := os.Create(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		return stream{f, func() string {
			f.Close()
			data, _ := os.ReadFile(f.Name())
			return string(data)
		}}
	}
	out, errs := open(ttyOut, "stdout"), open(ttyErr, "stderr")
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = out.f, errs.f
	code := func() int {
		defer func() { os.Stdout, os.Stderr = stdout, stderr }()
		return run(append([]string{"rebasegen", "--quiet"}, args...))
	}()
	return result{code: code, stdout: out.read(), stderr: errs.read()}
}

// TestColourOnlyForTerminalsThatShowIt (issue 24 point 8): explain's --color auto colours a
// terminal, but not with TERM=dumb (a terminal that shows escape sequences as text) nor with
// NO_COLOR set (no-color.org).
func TestColourOnlyForTerminalsThatShowIt(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	for _, tc := range []struct {
		env    map[string]string
		colour bool
	}{
		{map[string]string{"TERM": "xterm-256color", "NO_COLOR": ""}, true},
		{map[string]string{"TERM": "dumb", "NO_COLOR": ""}, false},
		{map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, false},
	} {
		r := rebasegenTTY(t, 200, true, false, tc.env, append([]string{"explain"}, fix...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.env, r.code, r.stderr)
		}
		if got := strings.Contains(r.stdout, "\x1b["); got != tc.colour {
			t.Errorf("%v: colour %v, want %v:\n%s", tc.env, got, tc.colour, r.stdout)
		}
	}
}

// fits fails when a line of out is wider than width and could have been broken (holds a space
// after its indent).
func fits(t *testing.T, what, out string, width int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > width && strings.Contains(strings.TrimSpace(l), " ") {
			t.Errorf("%s: line of %d columns at width %d: %q", what, utf8.RuneCountInString(l), width, l)
		}
	}
}

// TestTextOutputFitsTheTerminal (issue 24 point 7): check's, lint's and generate's text on a
// terminal of 60 columns is wrapped at spaces to 60 columns (the same words as in a file), and
// left alone in a file.
func TestTextOutputFitsTheTerminal(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	none := filepath.Join(t.TempDir(), "none.yml")
	if err := os.WriteFile(none, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		stderr bool // the text is on stderr
	}{
		{"check", append([]string{"check", "--rules", none}, fix...), false},
		{"lint", []string{"lint", "--rules", lintFixture("invalid-type")}, false},
		{"generate", append([]string{"generate"}, fix...), true},
	} {
		piped := rebasegen(t, tc.args...)
		tty := rebasegenTTY(t, 60, !tc.stderr, tc.stderr, nil, tc.args...)
		want, got := piped.stdout, tty.stdout
		if tc.stderr {
			want, got = piped.stderr, tty.stderr
		}
		if tty.code != piped.code {
			t.Errorf("%s: exit %d on a terminal, %d in a file", tc.name, tty.code, piped.code)
		}
		if maxWidth(want) <= 60 {
			t.Fatalf("%s: the widest line in a file is %d columns: pick a case with wider lines", tc.name, maxWidth(want))
		}
		fits(t, tc.name, got, 60)
		if a, b := strings.Fields(want), strings.Fields(got); !slices.Equal(a, b) {
			t.Errorf("%s: other words on the terminal:\n%s\n---\n%s", tc.name, want, got)
		}
	}
}

func maxWidth(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// TestExplainPipedIsNarrow (issue 24 point 7): explain in a file or pipe lays its fields out for
// 80 columns ($COLUMNS when set), --wide one line per field.
func TestExplainPipedIsNarrow(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	t.Setenv("COLUMNS", "")
	narrow := rebasegen(t, append([]string{"explain"}, fix...)...)
	fits(t, "explain", narrow.stdout, 80)
	t.Setenv("COLUMNS", "100")
	fits(t, "explain with COLUMNS=100", rebasegen(t, append([]string{"explain"}, fix...)...).stdout, 100)
	wide := rebasegen(t, append([]string{"explain", "--wide"}, fix...)...)
	if maxWidth(wide.stdout) <= 100 || strings.Contains(wide.stdout, "\n      defaulting") {
		t.Errorf("--wide: not one line per field:\n%s", wide.stdout)
	}
	// a path too wide for the line goes on before a segment (".protocol"), 4 columns in
	joined := strings.NewReplacer("\n    .", ".", "\n    [", "[").Replace(narrow.stdout)
	if a, b := strings.Fields(joined), strings.Fields(wide.stdout); !slices.Equal(a, b) {
		t.Errorf("narrow and --wide differ in words:\n%s\n---\n%s", narrow.stdout, wide.stdout)
	}
}

// TestExplainContinuationsAreIndented (newcomer24 finding 15): in explain's text laid out for 80
// columns, a line at the margin begins a resource (its header, or a resource not compared) or the
// summary: a header's continuation ("kapp)") is indented, not a resource of its own.
func TestExplainContinuationsAreIndented(t *testing.T) {
	t.Setenv("COLUMNS", "")
	for _, name := range []string{"hpa-replicas", "admission-webhook", "services"} {
		fix := scenario(t, name)
		js := rebasegen(t, append([]string{"explain", "-o", "json"}, fix...)...)
		var rep struct {
			Resources []struct{ Group, Kind, Namespace, Name string }
		}
		if err := json.Unmarshal([]byte(js.stdout), &rep); err != nil || len(rep.Resources) == 0 {
			t.Fatalf("%s: explain -o json: %v\n%s", name, err, js.stdout)
		}
		var starts []string
		for _, r := range rep.Resources {
			id := r.Name
			if r.Namespace != "" {
				id = r.Namespace + "/" + id
			}
			group := r.Group
			if group == "" {
				group = "core" // as pair.Identity writes the core group
			}
			starts = append(starts, group+"/"+r.Kind+" "+id+" (")
		}
		out := rebasegen(t, append([]string{"explain"}, fix...)...).stdout
		if maxWidth(out) > 80 {
			t.Fatalf("%s: not laid out for 80 columns:\n%s", name, out)
		}
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "Summary: ") || slices.ContainsFunc(starts, func(s string) bool { return strings.HasPrefix(l, s) }) {
				continue
			}
			t.Errorf("%s: a line at the margin that begins no resource: %q in\n%s", name, l, out)
		}
	}
}
