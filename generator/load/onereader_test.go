package load

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneReader (issue 23): Reader is the only code of the CLI that reads input files. A read
// elsewhere had none of its bounds: check sniffed --rules with os.ReadFile (/dev/zero ran the
// process out of memory, and a pipe was drained before it was read), ytt listed and read package
// files itself (a pipe in the directory hung, "-" was the process's stdin once per process).
// Every non-test file of the module's packages the CLI links is scanned for the calls that read
// files; os.Stdin may only be handed to NewReader.
func TestOneReader(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}\t{{join .GoFiles \" \"}}{{end}}", "../../cmd/rebasegen").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, _ := filepath.Abs("../..")
	forbidden := map[string]bool{"os.ReadFile": true, "os.Open": true, "os.OpenFile": true, "io.ReadAll": true,
		"ioutil.ReadFile": true, "ioutil.ReadAll": true, "files.NewSortedFilesFromPaths": true, "files.ReadStdin": true}
	scanned := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, names, _ := strings.Cut(line, "\t")
		if !strings.HasPrefix(dir, root+string(filepath.Separator)) {
			continue // not this module's
		}
		for _, name := range strings.Fields(names) {
			path := filepath.Join(dir, name)
			rel, _ := filepath.Rel(root, path)
			// read.go is the Reader; internal/child is the child processes' (a package's render, the
			// ytt rule and Argo CD jq children) reading their parent's requests (stdin), the result
			// pipe and /proc/self/status: no input file (the parent reads those and sends them)
			if rel == filepath.Join("generator", "load", "read.go") || strings.HasPrefix(rel, filepath.Join("internal", "child")+string(filepath.Separator)) || strings.HasPrefix(rel, filepath.Join("generator", "yttrender", "child")) {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			scanned++
			handed := map[ast.Node]bool{} // os.Stdin given to NewReader
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					name := selector(n.Fun)
					if name == "load.NewReader" {
						for _, a := range n.Args {
							handed[a] = true
						}
					}
					if forbidden[name] {
						t.Errorf("%s: %s: input files are read by load.Reader only", fset.Position(n.Pos()), name)
					}
				case *ast.SelectorExpr:
					if selector(n) == "os.Stdin" && !handed[n] {
						t.Errorf("%s: os.Stdin outside load.NewReader: stdin is read once, by load.Reader", fset.Position(n.Pos()))
					}
				}
				return true
			})
		}
	}
	if scanned < 50 {
		t.Fatalf("scanned %d files: the package list is wrong\n%s", scanned, out)
	}
}

// selector is "pkg.Name" for a selector on an identifier, else "".
func selector(e ast.Expr) string {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	x, ok := s.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return x.Name + "." + s.Sel.Name
}
