package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
)

// checkOutputFile refuses, before any work, an --output-file that is one of the inputs, or a
// file inside an input directory that rebasegen did not generate: it would be read as an input
// and then overwritten. (A file rebasegen generated inside an input directory is left out of
// the inputs: load.IsGenerated.) A read-only file is refused rather than replaced.
func checkOutputFile(path string, in generator.Inputs) error {
	if path == "-" {
		return nil
	}
	st, err := os.Stat(path)
	// what writeOutput would refuse, before the analysis rather than after it
	if err == nil && st.IsDir() {
		return fmt.Errorf("--output-file %s: is a directory; name a file in it", path)
	}
	if _, derr := os.Stat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) && derr != nil {
		return fmt.Errorf("--output-file %s: %w", path, derr)
	}
	if err != nil || !st.Mode().IsRegular() {
		return nil // a new file, or a pipe or device written in place
	}
	if st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("--output-file %s: the file is read-only; make it writable or remove it to replace it", path)
	}
	out := resolved(path) // through symlinks: link/x.yml, link naming the package directory
	paths := slices.Concat(in.Desired, in.Live, in.CRDs, in.Rulesets, in.Package.Dirs, in.Package.ValuesFiles, []string{in.Package.CR})
	for _, p := range paths {
		ist, err := os.Stat(p)
		if p == "" || p == "-" || err != nil {
			continue
		}
		if !ist.IsDir() {
			if os.SameFile(st, ist) {
				return fmt.Errorf("--output-file %s: it is also an input (%s): the output would overwrite what it was generated from", path, p)
			}
			continue
		}
		if rel, err := filepath.Rel(resolved(p), out); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			data, err := in.Reader.ReadFile(path)
			if err == nil && !load.IsGenerated(data) {
				return fmt.Errorf("--output-file %s: it is an input (in %s) that rebasegen did not generate: the output would overwrite it; write elsewhere or remove it", path, p)
			}
		}
	}
	return nil
}

// resolved is path absolute with every symlink resolved, as the file system resolves it when
// writing; of a path that does not exist, its directory is resolved.
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// writeOutput writes to a temp file and renames it, so an existing file is never half-written.
// The file keeps an existing file's permissions, else gets 0644 (a committed file, as kapp and
// ytt users expect); errors name path, never the temp file.
func writeOutput(path string, data []byte, stdout io.Writer) error {
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if err := replaceFile(path, data); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("--output-file %s: %w", path, err)
	}
	return nil
}

func replaceFile(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			// a pipe or device (/dev/stdout, <(...)): renaming over it would replace it
			return os.WriteFile(path, data, 0)
		}
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
