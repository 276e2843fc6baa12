//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputToPipe: --output naming something that is not a regular file (a named pipe here;
// /dev/stdout, /dev/null or a process substitution in practice) is written to, not replaced by a
// regular file. (Run as root, replacing /dev/null breaks the machine.)
func TestOutputToPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "rules.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fix := scenario(t, "hpa-replicas")
	want := rebasegen(t, append([]string{"generate"}, fix...)...).stdout
	// A non-blocking reader lets generate open the pipe for writing; the rules must fit a pipe's
	// buffer (64 KiB on Linux) so that generate does not wait for the reader.
	if len(want) == 0 || len(want) > 32<<10 {
		t.Fatalf("want 1 byte to 32 KiB of rules, got %d", len(want))
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := rebasegen(t, append([]string{"generate", "--output-file", fifo}, fix...)...)
	if res.code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", res.code, res.stderr)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a named pipe: %v %v", fifo, st.Mode(), err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(got) == 0:
		t.Errorf("nothing was written to the pipe")
	case dropHeader(t, string(got)) != dropHeader(t, want):
		t.Errorf("read from the pipe:\n%s\nwant what generate writes to stdout:\n%s", got, want)
	}
}
