package compare

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/api.txt from go doc")

// goCmd runs the go command in dir, without the network (the module cache has what the
// repository builds with).
func goCmd(t *testing.T, dir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	// The module proxy stays reachable: a fresh machine has none of hack/comparebench's test-only
	// modules (objectmatcher, controller-runtime) cached, and -mod=readonly already refuses a go.mod
	// that needs changing.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// linksNone fails for every package of deps (go list -deps output) from a module a controller
// must not be made to link by importing the package.
func linksNone(t *testing.T, what, deps string) {
	t.Helper()
	n := 0
	for _, d := range strings.Fields(deps) {
		n++
		for _, bad := range []string{"carvel.dev/", "github.com/urfave/cli", "github.com/rebasegen/rebasegen/generator/kappcover",
			"github.com/rebasegen/rebasegen/generator/yttrender", "github.com/rebasegen/rebasegen/internal/kappglobal"} {
			if strings.HasPrefix(d, bad) {
				t.Errorf("%s links %s", what, d)
			}
		}
	}
	if n < 100 {
		t.Errorf("%s: %d packages listed: the list is wrong", what, n)
	}
}

// TestImports: importing the package links neither kapp, ytt, nor urfave/cli.
func TestImports(t *testing.T) {
	out, stderr, err := goCmd(t, ".", "list", "-deps", ".")
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	linksNone(t, "compare", out)
	if !strings.Contains(out, "github.com/rebasegen/rebasegen/generator/classify\n") {
		t.Errorf("compare does not link the classifier explain uses")
	}
}

// TestAPI: the exported API, as go doc -all shows it, is testdata/api.txt; a change to it is
// deliberate (go test ./compare -run TestAPI -update, then review the diff).
func TestAPI(t *testing.T) {
	out, stderr, err := goCmd(t, ".", "doc", "-all", ".")
	if err != nil || out == "" {
		t.Fatalf("go doc: %v\n%s", err, stderr)
	}
	// go doc names a package given by directory `import "."`
	out = strings.Replace(out, `// import "."`, `// import "github.com/rebasegen/rebasegen/compare"`, 1)
	golden := filepath.Join("testdata", "api.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("the exported API differs from %s (rerun with -update and review the diff):\n%s", golden, out)
	}
}

// readmeSection is the README's "As a library" section.
func readmeSection(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "\n## As a library\n")
	if i < 0 {
		t.Fatal(`README.md has no "## As a library" section`)
	}
	s = s[i+1:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

// fenced returns the first code block of s opened by fence.
func fenced(t *testing.T, s, fence string) string {
	t.Helper()
	i := strings.Index(s, fence+"\n")
	if i < 0 {
		t.Fatalf("no %s block", fence)
	}
	s = s[i+len(fence)+1:]
	j := strings.Index(s, "```\n")
	if j < 0 {
		t.Fatalf("the %s block is not closed", fence)
	}
	return s[:j]
}

// TestREADMEExample: the README's library code is the package's Example, which compiles and
// runs with its output checked (example_test.go).
func TestREADMEExample(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, "\nfunc Example() {\n")
	if i < 0 {
		t.Fatal("example_test.go has no func Example")
	}
	s = s[i+len("\nfunc Example() {\n"):]
	s = s[:strings.Index(s, "\n}\n")+1]
	var body strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		body.WriteString(strings.TrimPrefix(l, "\t"))
	}
	if got := fenced(t, readmeSection(t), "```go"); got != body.String() {
		t.Errorf("README's library code differs from func Example in example_test.go:\nREADME:\n%s\nExample:\n%s", got, body.String())
	}
}

// TestImporterBuilds: examples/importer, a module of its own that imports the package, builds
// with exactly the go.mod lines the README gives (-mod=readonly: nothing added), links neither
// kapp, ytt nor urfave/cli, and with those lines the k8s.io staging modules resolve.
func TestImporterBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module: not in -short")
	}
	dir := filepath.Join("..", "examples", "importer")
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	section := readmeSection(t)
	i := strings.Index(section, "An importer's go.mod")
	if i < 0 {
		t.Fatal("the README's section does not give an importer's go.mod lines")
	}
	lines := fenced(t, section[i:], "```")
	if !strings.Contains(string(gomod), lines) {
		t.Errorf("examples/importer/go.mod does not hold the README's lines exactly:\n%s", lines)
	}
	// the replaces pin the staging modules at the version this module requires
	main, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var api string
	for _, l := range strings.Split(string(main), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "k8s.io/api" {
			api = f[1]
		}
	}
	if api == "" || !strings.Contains(lines, "k8s.io/api => k8s.io/api "+api+"\n") {
		t.Errorf("the README's replaces are not at k8s.io/api %q, which go.mod requires", api)
	}
	if _, stderr, err := goCmd(t, dir, "build", "-mod=readonly", "-o", os.DevNull, "."); err != nil {
		t.Fatalf("building examples/importer: %v\n%s", err, stderr)
	}
	out, stderr, err := goCmd(t, dir, "list", "-mod=readonly", "-deps", ".")
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	linksNone(t, "examples/importer", out)
	out, _, _ = goCmd(t, dir, "list", "-mod=readonly", "-m", "-e", "-f", "{{.Path}} {{.Version}} {{if .Replace}}{{.Replace.Version}}{{end}}", "all")
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[0], "k8s.io/") && f[1] == "v0.0.0" {
			t.Errorf("%s: v0.0.0 and not replaced", f[0])
		}
	}
}

// TestComparebenchBuilds: hack/comparebench, the module of its own that sets compare beside
// objectmatcher and plays the controller scene, type-checks with its tests as its go.mod stands
// (-mod=readonly): nothing else in make test compiles it, and a go.mod left behind main's
// versions once broke it unnoticed. Its scene needs a cluster and is not run here.
func TestComparebenchBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module: not in -short")
	}
	if _, stderr, err := goCmd(t, filepath.Join("..", "hack", "comparebench"), "vet", "-mod=readonly", "./..."); err != nil {
		t.Fatalf("go vet in hack/comparebench: %v\n%s", err, stderr)
	}
}
