package load

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"

	"github.com/rebasegen/rebasegen/internal/parallel"
)

// Paths reads and decodes every object from the given paths (see Docs): for small inputs.
func Paths(paths []string, stdin io.Reader) ([]Object, error) {
	docs, err := Docs(paths, stdin)
	if err != nil {
		return nil, err
	}
	return Objects(docs)
}

// Docs reads every object from the given paths: files, directories (all *.yml/*.yaml inside,
// recursively, in sorted order) or "-" for stdin.
//
// Files are read and parsed on every core (performance: loading was the largest serial part of
// explain at fleet scale); the objects and the error returned are those of reading the files one
// by one in order: objects in file order, else the first failing path's or file's error.
func Docs(paths []string, stdin io.Reader) ([]Doc, error) {
	return docs(paths, stdin, limits{MaxFileSize, MaxTotalSize}, "")
}

// Inputs reads the objects an input flag (--desired, --live) names, as Docs does, except that
// files rebasegen generated (IsGenerated) are left out: they are its output, never its input
// (read as the package's rules, a previous run's output made the next run flip-flop). A path
// that holds no object is an error naming the flag: an empty file, stdin or directory, one of
// comments only, null or bare separators would otherwise be read as "nothing desired".
func Inputs(flag string, paths []string, stdin io.Reader) ([]Doc, error) {
	return docs(paths, stdin, limits{MaxFileSize, MaxTotalSize}, flag)
}

// limits are the sizes a read allows after alias expansion: MaxFileSize per file and
// MaxTotalSize for all files together (tests lower them).
type limits struct{ file, total int64 }

// docs reads paths; with flag set, as Inputs for that flag.
func docs(paths []string, stdin io.Reader, lim limits, flag string) ([]Doc, error) {
	type file struct {
		path  int // index in paths
		name  string
		stdin bool
		data  []byte
		docs  []Doc
		err   error
	}
	var files []*file
	for pi, p := range paths {
		names, err := expand(p)
		if err != nil {
			files = append(files, &file{err: err})
			break // nothing after it would have been read
		}
		for _, n := range names {
			f := &file{path: pi, name: n}
			if n == "-" { // stdin is read here, in order: "-" twice gets the data once, as before
				f.stdin = true
				f.data, f.err = readFile(n, stdin)
			}
			files = append(files, f)
		}
	}
	var total atomic.Int64
	dicts := newDictionaries()
	parallel.Each(len(files), func() func(int) {
		return func(i int) {
			f := files[i]
			if f.err != nil {
				return
			}
			if !f.stdin {
				if f.data, f.err = readFile(f.name, stdin); f.err != nil {
					if flag != "" && f.name != paths[f.path] { // a directory's file: name the flag too
						f.err = fmt.Errorf("%s %s: %w", flag, paths[f.path], f.err)
					}
					return
				}
			}
			if flag != "" && IsGenerated(f.data) {
				f.data = nil
				return
			}
			var size int64
			f.docs, size, f.err = parseDocs(f.name, f.data, lim.file, dicts)
			f.data = nil
			if f.err == nil && total.Add(size) > lim.total {
				f.err = fmt.Errorf("reading %s: the inputs are larger than %d MiB in all after alias expansion", f.name, lim.total>>20)
			}
		}
	})
	var all []Doc
	objects := make([]int, len(paths))
	for _, f := range files {
		if f.err != nil {
			return nil, f.err
		}
		all = append(all, f.docs...)
		objects[f.path] += len(f.docs)
	}
	packJSON(all)
	for i, n := range objects {
		if flag != "" && n == 0 {
			what := paths[i]
			if what == "-" {
				what = "- (stdin)"
			}
			return nil, fmt.Errorf("%s %s: no Kubernetes object in it (empty, only comments, null or separators, or only files rebasegen generated)", flag, what)
		}
	}
	return all, nil
}

// packJSON moves the compressed JSON of docs into one allocation (each Doc's capped at its own
// length). Performance: compressed one by one on every core amid the garbage of parsing, they
// pinned memory spans that were otherwise free for the rest of the run (the Docs stay live to
// the end).
func packJSON(docs []Doc) {
	n := 0
	for _, d := range docs {
		n += len(d.json)
	}
	all := make([]byte, 0, n)
	for i, d := range docs {
		start := len(all)
		all = append(all, d.json...)
		docs[i].json = all[start:len(all):len(all)]
	}
}

// Files are the files Docs reads for one path: the file itself, or a directory's *.yml/*.yaml.
func Files(p string) ([]string, error) { return expand(p) }

func expand(p string) ([]string, error) {
	if p == "-" {
		return []string{p}, nil
	}
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	// WalkDir does not follow symlinked directories, so a symlink loop cannot recurse forever;
	// symlinked files are followed by readFile.
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		ext := filepath.Ext(path)
		if !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			if d.Type()&fs.ModeSymlink != 0 {
				if st, err := os.Stat(path); err != nil || st.IsDir() {
					return nil
				}
			}
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	if err == nil && len(files) == 0 {
		// Hardening: an empty directory (or one holding only symlink loops) is a mistake, and as
		// --desired it would silently switch to recovering desired objects from live ones.
		return nil, fmt.Errorf("reading %s: no *.yaml or *.yml file in the directory (symlinked directories are not followed)", p)
	}
	return files, err
}

func readFile(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		defer f.Close()
		// Hardening: reject a regular file that is too large before reading any of it (reading
		// up to the limit first cost MaxFileSize of memory per rejected input).
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileSize {
			return nil, fmt.Errorf("reading %s: larger than %d MiB", name, MaxFileSize>>20)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > MaxFileSize {
		return nil, fmt.Errorf("reading %s: larger than %d MiB", name, MaxFileSize>>20)
	}
	return data, nil
}

// ReadFile reads one file (or "-", stdin) of at most MaxFileSize bytes.
func ReadFile(name string, stdin io.Reader) ([]byte, error) { return readFile(name, stdin) }

// IsGenerated recognises a file rebasegen generated by its header (emit writes it), also nested
// in the Secret format.
func IsGenerated(data []byte) bool {
	for _, l := range bytes.SplitN(data, []byte("\n"), 16) {
		if bytes.HasPrefix(bytes.TrimLeft(l, " "), []byte("#! Generated by rebasegen ")) {
			return true
		}
	}
	return false
}
