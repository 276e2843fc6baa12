//go:build unix

package load

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f, failing the test instead of hanging (an opened pipe waits for its writer).
func within[T any](t *testing.T, what string, f func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() { v, err := f(); done <- result{v, err} }()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return within 30s", what)
		var zero T
		return zero, nil
	}
}

// TestReaderRefusesWhatIsNotAFile (issue 23): devices are refused as paths and through a symlink
// in a directory (/dev/zero was read until memory ran out), and so is a named pipe found in a
// directory (opening it waited forever for a writer), by every reader: Docs and ReadPath here,
// ytt's package files and data values in yttrender.
func TestReaderRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "devices", "a.yaml"), obj("a"))
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "devices", "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "pipes", "a.yaml"), obj("a"))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipes", "f.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := NewReader(nil)
	for _, tc := range []struct{ path, file, want string }{
		{"/dev/zero", "/dev/zero", "a device, not a regular file"},
		{filepath.Join(dir, "devices"), "zero.yaml", "a device, not a regular file"},
		{filepath.Join(dir, "pipes"), "f.yaml", "a named pipe in a directory, not a regular file"},
	} {
		for what, read := range map[string]func() (any, error){
			"Docs":     func() (any, error) { return Docs([]string{tc.path}, r) },
			"ReadPath": func() (any, error) { return r.ReadPath(tc.path) },
		} {
			_, err := within(t, what+" "+tc.path, read)
			if err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: got %v, want an error naming %s: %s", what, tc.path, err, tc.file, tc.want)
			}
		}
	}
}

// TestReaderReadsAPipeOnce (issue 23): a pipe named on the command line (--rules <(cmd)) is read
// once, and every later read gets the same data: sniffing its format drained it, and the rules
// were then read as none. Stdin is shared the same way.
func TestReaderReadsAPipeOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "rules.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.WriteString(obj("from-pipe"))
		w.Close()
	}()
	r := NewReader(strings.NewReader(obj("from-stdin")))
	for _, name := range []string{fifo, "-"} {
		for i := range 3 {
			objs, err := within(t, "Paths "+name, func() ([]Object, error) { return Paths([]string{name}, r) })
			if err != nil || len(objs) != 1 {
				t.Fatalf("read %d of %s: %d objects, %v", i+1, name, len(objs), err)
			}
		}
	}
	if _, err := NewReader(nil).ReadFile("-"); err == nil || !strings.Contains(err.Error(), "- (stdin): no standard input") {
		t.Errorf("no stdin: got %v", err)
	}
	var nilReader *Reader
	if _, err := nilReader.ReadFile("-"); err == nil {
		t.Errorf("a nil Reader read stdin")
	}
}

// TestCaptureDirRefusesAPipe (issue 23, probe16 P16-2): a named pipe as a capture directory's
// live.yaml or crds.yaml was handed on as if named on the command line and opened: every
// command waited forever for a writer. Found in a directory, it is refused by name.
func TestCaptureDirRefusesAPipe(t *testing.T) {
	for _, pipe := range []string{CaptureLive, CaptureCRDs} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, ServerVersionFile), `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`)
		if pipe != CaptureLive {
			write(t, filepath.Join(dir, CaptureLive), obj("a"))
		}
		if err := syscall.Mkfifo(filepath.Join(dir, pipe), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := within(t, "CaptureDirs and Docs", func() (any, error) {
			live, crds, err := CaptureDirs([]string{dir}, nil)
			if err != nil {
				return nil, err
			}
			r := NewReader(nil)
			if _, err := Docs(live, r); err != nil {
				return nil, err
			}
			return Docs(crds, r)
		})
		if err == nil || !strings.Contains(err.Error(), pipe) || !strings.Contains(err.Error(), "a named pipe in a directory, not a regular file") {
			t.Errorf("%s a pipe: got %v, want it refused by name", pipe, err)
		}
	}
}
