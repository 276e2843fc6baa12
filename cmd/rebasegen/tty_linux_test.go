package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
