package yttrender

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRenderChildBoundsOneAllocation (issue 23, bounds): a template allocating a list of 2^30
// items in one go (16 GB) is refused with the memory error naming the package, and the process
// asking for the render lives on, its memory untouched: the render child's allocation fails
// against its kernel limit (RLIMIT_AS). The polled heap watch of an in-process render saw it
// only once the list was built: the process grew to 17 GB, or died of Go's fatal out-of-memory
// error where the machine had less.
func TestRenderChildBoundsOneAllocation(t *testing.T) {
	if !childRenders.Load() {
		t.Skip("no render child on this OS")
	}
	huge := filepath.Join(t.TempDir(), "huge")
	if err := os.MkdirAll(huge, 0o755); err != nil {
		t.Fatal(err)
	}
	tpl := "#@ items = [None] * ((1 << 30) - 1)\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: #@ \"c\" + str(len(items))\n"
	if err := os.WriteFile(filepath.Join(huge, "t.yml"), []byte(tpl), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
		t.Fatal(err)
	}
	_, err := Package{Dirs: []string{huge}}.Render(nil)
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
		t.Fatal(err)
	}
	// the old in-process render: 17 GB of resident memory and 5 minutes before the watch saw it
	if grown := (after.Maxrss - before.Maxrss) << 10; grown > RenderMemory/4 {
		t.Errorf("the process's peak memory grew by %d MiB", grown>>20)
	}
	want := fmt.Sprintf("rendering package %s with ytt: it needs more than %d MiB of memory", huge, RenderMemory>>20)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a list of 2^30 items: got %v, want %q", err, want)
	}
	// the same process renders the next package as before
	docs, err := Package{Dirs: []string{pkgDir + "/config"}, ValuesFiles: []string{pkgDir + "/values.yml"}}.Render(nil)
	if err != nil || len(docs) == 0 {
		t.Errorf("rendering %s after it: %d documents, %v", pkgDir, len(docs), err)
	}
}
