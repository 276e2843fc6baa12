//go:build unix

package yttrender

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rebasegen/rebasegen/generator/load"
)

// TestRenderRefusesWhatIsNotAFile (issue 23): a package's files and its data values files are read
// by load.Reader, which refuses devices (as paths and through a symlink in a directory: /dev/zero
// was read until memory ran out) and a named pipe found in a directory (opening it waited forever
// for a writer); ytt's own refusals are kept.
func TestRenderRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	for _, sub := range []string{"devices", "pipes"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "a.yaml"), []byte(cm), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "devices", "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipes", "f.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := load.NewReader(nil)
	for _, tc := range []struct{ path, file, want string }{
		{"/dev/zero", "/dev/zero", "to be a regular file"},                      // ytt's refusal
		{filepath.Join(dir, "devices"), "zero.yaml", "symlinks are disallowed"}, // ytt's refusal
		{filepath.Join(dir, "pipes"), "f.yaml", "a named pipe in a directory, not a regular file"},
	} {
		for what, p := range map[string]Package{
			"package": {Dirs: []string{tc.path}},
			"values":  {Dirs: []string{"../../fixtures/packages/hpa-web/config"}, ValuesFiles: []string{tc.path}},
		} {
			done := make(chan error, 1)
			go func() { _, err := p.Render(r); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s %s: not done within 30s", what, tc.path)
			}
			if err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: got %v, want an error naming %s: %s", what, tc.path, err, tc.file, tc.want)
			}
		}
	}
}
