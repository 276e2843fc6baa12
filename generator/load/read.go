package load

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/generated"
	"github.com/rebasegen/rebasegen/internal/parallel"
)

// Paths reads and decodes every object from the given paths (see Docs): for small inputs.
func Paths(paths []string, r *Reader) ([]Object, error) {
	docs, err := Docs(paths, r)
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
func Docs(paths []string, r *Reader) ([]Doc, error) {
	return docs(paths, r, limits{MaxFileSize, MaxTotalSize}, "")
}

// Inputs reads the objects an input flag (--desired, --live) names, as Docs does, marking the
// documents of files bearing rebasegen's header (IsGenerated) Source.Generated: kapp applies
// their rules like any others, but they are rebasegen's output, not the package's own rules
// (counted as such, a previous run's output made the next run flip-flop). A path that holds no
// object is an error naming the flag: an empty file, stdin or directory, one of comments only,
// null or bare separators would otherwise be read as "nothing desired".
func Inputs(flag string, paths []string, r *Reader) ([]Doc, error) {
	return docs(paths, r, limits{MaxFileSize, MaxTotalSize}, flag)
}

// limits are the sizes a read allows after alias expansion: MaxFileSize per file and
// MaxTotalSize for all files together (tests lower them).
type limits struct{ file, total int64 }

// docs reads paths; with flag set, as Inputs for that flag.
func docs(paths []string, r *Reader, lim limits, flag string) ([]Doc, error) {
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
			if n == "-" { // stdin is read here, in order (once: the Reader shares its data)
				f.stdin = true
				f.data, f.err = r.ReadFile(n)
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
				if f.data, f.err = r.read(f.name, f.name == paths[f.path]); f.err != nil {
					if flag != "" && f.name != paths[f.path] { // a directory's file: name the flag too
						f.err = fmt.Errorf("%s %s: %w", flag, escape.Text(paths[f.path]), f.err)
					}
					return
				}
			}
			var size int64
			f.docs, size, f.err = parseDocs(f.name, f.data, lim.file, dicts)
			if flag != "" && IsGenerated(f.data) {
				for i := range f.docs {
					f.docs[i].Source.Generated = true
				}
			}
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
			return nil, fmt.Errorf("%s %s: no Kubernetes object in it (empty, only comments, null or separators)", flag, what)
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

// expand lists the files Docs reads for one path: the path itself (a file, "-" or a pipe), or a
// directory's *.yml/*.yaml/*.json, recursively, sorted: the files kapp's -f reads from a directory.
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
	// symlinked files are followed by Reader.
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		ext := filepath.Ext(path)
		if !d.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
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
		return nil, fmt.Errorf("reading %s: no *.yaml, *.yml or *.json file in the directory (symlinked directories are not followed)", p)
	}
	return files, err
}

// Reader reads every input file of a run, and is the only code that does (TestOneReader):
//   - a regular file, of at most MaxFileSize, refused by its size before any of it is read;
//   - "-", stdin, and a pipe named on the command line (--rules <(cmd), /dev/fd/N): read once,
//     bounded like a file, and the data shared by every later read of the same name (sniffing
//     its format, lint's line numbers): a second read of a pipe would find it empty;
//   - anything else refused: devices (/dev/zero has no end), sockets, and pipes found in a
//     directory (opening one waits for a writer that may never come).
//
// A nil *Reader reads files but has no stdin.
type Reader struct {
	stdin io.Reader
	mu    sync.Mutex
	once  map[string]*streamRead
}

type streamRead struct {
	done chan struct{}
	data []byte
	err  error
}

// NewReader returns a Reader reading "-" from stdin (nil: none).
func NewReader(stdin io.Reader) *Reader {
	return &Reader{stdin: stdin, once: map[string]*streamRead{}}
}

// ReadFile reads a file named on the command line, or "-" for stdin.
func (r *Reader) ReadFile(name string) ([]byte, error) { return r.read(name, true) }

// ReadFound reads a file found in a directory that was named: a pipe there is refused (opening
// one waits for a writer that may never come).
func (r *Reader) ReadFound(name string) ([]byte, error) { return r.read(name, false) }

// read reads one file; named says the user named it (a pipe is read then), else it was found in
// a directory.
func (r *Reader) read(name string, named bool) ([]byte, error) {
	if name == "-" {
		return r.stream(name, func() (io.ReadCloser, error) {
			if r == nil || r.stdin == nil {
				return nil, errors.New("no standard input to read")
			}
			return io.NopCloser(r.stdin), nil
		})
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		return readRegular(name)
	case m&fs.ModeNamedPipe != 0 && named:
		return r.stream(name, func() (io.ReadCloser, error) { return os.Open(name) })
	default:
		return nil, fmt.Errorf("reading %s: %s", name, notAFile(m, named))
	}
}

// notAFile says why a file of mode m is not read.
func notAFile(m fs.FileMode, named bool) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0 && !named:
		return "a named pipe in a directory, not a regular file (a pipe is read only when named on the command line)"
	case m&fs.ModeDevice != 0:
		return "a device, not a regular file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	}
	return "not a regular file"
}

// readRegular reads a regular file, refusing one that is too large before reading any of it
// (reading up to the limit first cost MaxFileSize of memory per rejected input).
func readRegular(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", name, err)
	case !st.Mode().IsRegular(): // replaced since it was looked at
		return nil, fmt.Errorf("reading %s: %s", name, notAFile(st.Mode(), false))
	case st.Size() > MaxFileSize:
		return nil, fmt.Errorf("reading %s: larger than %d MiB", name, MaxFileSize>>20)
	}
	return readBounded(name, f)
}

// stream reads stdin or a named pipe once, whoever asks first; later reads get the same data.
func (r *Reader) stream(name string, open func() (io.ReadCloser, error)) ([]byte, error) {
	if r == nil {
		r = NewReader(nil)
	}
	r.mu.Lock()
	s, ok := r.once[name]
	if !ok {
		s = &streamRead{done: make(chan struct{})}
		r.once[name] = s
	}
	r.mu.Unlock()
	if ok {
		<-s.done
		return s.data, s.err
	}
	defer close(s.done)
	f, err := open()
	if err != nil {
		s.err = fmt.Errorf("reading %s: %w", describe(name), err)
		return nil, s.err
	}
	defer f.Close()
	s.data, s.err = readBounded(describe(name), f)
	return s.data, s.err
}

func describe(name string) string {
	if name == "-" {
		return "- (stdin)"
	}
	return name
}

func readBounded(name string, f io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > MaxFileSize {
		return nil, fmt.Errorf("reading %s: larger than %d MiB", name, MaxFileSize>>20)
	}
	return data, nil
}

// File is one file read from a path.
type File struct {
	Name string
	Data []byte
}

// ReadPath reads the files Docs reads for one path: the file itself or "-", or a directory's
// *.yml/*.yaml (Files).
func (r *Reader) ReadPath(p string) ([]File, error) {
	names, err := expand(p)
	if err != nil {
		return nil, err
	}
	out := make([]File, len(names))
	for i, n := range names {
		out[i].Name = n
		if out[i].Data, err = r.read(n, n == p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Readable reports why a path named on the command line cannot be read, without reading it: a
// regular file or directory is opened (permission denied), a pipe is not (opening one waits for
// its writer), anything else is refused as Reader refuses it.
func Readable(path string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case info.Mode()&fs.ModeNamedPipe != 0:
		return nil
	case !info.Mode().IsRegular() && !info.IsDir():
		return errors.New(notAFile(info.Mode(), true))
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// IsGenerated recognises a file bearing the header of rebasegen's output (generated.Of): as it
// wrote it, or edited since.
func IsGenerated(data []byte) bool { return generated.Of(data) != generated.None }
