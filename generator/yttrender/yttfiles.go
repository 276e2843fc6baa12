package yttrender

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"carvel.dev/ytt/pkg/files"

	"github.com/rebasegen/rebasegen/generator/load"
)

// yttFiles lists paths as ytt -f does (files.NewSortedFilesFromPaths: a directory's files
// recursively, sorted by relative path within each path, symlinks refused), reading every file
// through r. ytt's own listing reads files unbounded, opens pipes found in directories (which
// waits for a writer), reads "-" from the process's stdin once per process, and fetches
// http(s):// paths: here "-" is r's stdin, and a path is a local path.
func yttFiles(r *load.Reader, paths []string) ([]yttFile, error) {
	var all []yttFile
	for _, p := range paths {
		var group []yttFile
		add := func(name, rel string, named bool) error {
			read := r.ReadFound
			if named {
				read = r.ReadFile
			}
			data, err := read(name)
			group = append(group, yttFile{name, rel, data})
			return err
		}
		if p == "-" {
			if err := add(p, "stdin.yml", true); err != nil { // ytt's name for it
				return nil, err
			}
			all = append(all, group...)
			continue
		}
		info, err := os.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		if !info.IsDir() {
			if _, err := files.NewRegularFileLocalSource(p, "", info, files.SymlinkAllowOpts{}); err != nil {
				return nil, err // ytt's refusal: a symlink
			}
			if err := add(p, filepath.Base(p), true); err != nil {
				return nil, err
			}
			all = append(all, group...)
			continue
		}
		err = filepath.Walk(p, func(walked string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			src, err := files.NewRegularFileLocalSource(walked, p, fi, files.SymlinkAllowOpts{})
			if err != nil {
				return err
			}
			rel, err := src.RelativePath()
			if err != nil {
				return err
			}
			return add(walked, rel, false)
		})
		if err != nil {
			return nil, err
		}
		sort.Slice(group, func(i, j int) bool { return group[i].Rel < group[j].Rel })
		all = append(all, group...)
	}
	return all, nil
}

// yttFile is a file read for ytt: read by the parent, rendered maybe by a child process
// (renderInChild), which reads no file itself.
type yttFile struct {
	Name, Rel string // its path, and its path in the package as ytt names it
	Data      []byte
}

// yttSource is a yttFile for ytt, described as ytt describes a local file.
type yttSource yttFile

func (s yttSource) Description() string           { return "file " + s.Name }
func (s yttSource) RelativePath() (string, error) { return s.Rel, nil }
func (s yttSource) Bytes() ([]byte, error)        { return s.Data, nil }

// yttInput is what a render of a package reads: its files, the files of each data values path
// (after ytt's @library: prefix), and its Package CR.
type yttInput struct {
	Files  []yttFile
	Values map[string][]yttFile
	CR     []byte
}

// read reads what rendering p reads, through r.
func (p Package) read(r *load.Reader) (yttInput, error) {
	var in yttInput
	var err error
	if in.Files, err = yttFiles(r, p.Dirs); err != nil {
		return in, fmt.Errorf("reading package %s: %w", strings.Join(p.Dirs, ","), err)
	}
	if in.Values, err = p.readValues(r); err != nil {
		return in, err
	}
	if p.CR != "" {
		if in.CR, err = r.ReadFile(p.CR); err != nil {
			return in, err
		}
	}
	return in, nil
}

// readValues reads the files of each data values path (yttInput.Values), through r.
func (p Package) readValues(r *load.Reader) (map[string][]yttFile, error) {
	var values map[string][]yttFile
	for _, v := range p.ValuesFiles {
		if lib, rest, ok := strings.Cut(v, ":"); ok && strings.HasPrefix(lib, "@") { // as ytt's libraryRefAndRemainder
			v = rest
		}
		if values == nil {
			values = map[string][]yttFile{}
		}
		var err error
		if values[v], err = yttFiles(r, []string{v}); err != nil {
			return nil, err
		}
	}
	return values, nil
}

// ValuesFile is a data values file of a package (ytt --data-values-file), as ytt reads it.
type ValuesFile struct {
	Name string // its path: a --values path, or a file of a --values directory
	Data []byte
}

// ReadValuesFiles reads the package's data values files, in the order ytt applies them.
func (p Package) ReadValuesFiles(r *load.Reader) ([]ValuesFile, error) {
	values, err := p.readValues(r)
	if err != nil {
		return nil, err
	}
	var out []ValuesFile
	for _, v := range p.ValuesFiles {
		if lib, rest, ok := strings.Cut(v, ":"); ok && strings.HasPrefix(lib, "@") {
			v = rest
		}
		for _, f := range values[v] {
			out = append(out, ValuesFile{f.Name, f.Data})
		}
	}
	return out, nil
}

// ytt is files as ytt's files, in order.
func ytt(fs []yttFile) ([]*files.File, error) {
	out := make([]*files.File, len(fs))
	for i, f := range fs {
		// ytt's parser expands every alias, unbounded
		if err := load.Aliases(f.Name, f.Data); err != nil {
			return nil, err
		}
		var err error
		if out[i], err = files.NewFileFromSource(yttSource(f)); err != nil {
			return nil, err
		}
	}
	return files.NewSortedFiles(out), nil
}
