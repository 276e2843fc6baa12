package fielddiff

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// Initialising the package builds nothing: every command of the binary initialises it, the ones
// that compare no object (version, --help, a usage error) included. The Go runtime's own init
// trace of this test binary, run again with no test, says what the package's initialisation
// allocated.
func TestInitBuildsNoSchema(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^init github\.com/rebasegen/rebasegen/generator/fielddiff @\S+ ms, \S+ ms clock, (\d+) bytes`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init trace of the package in:\n%s", out)
	}
	if n, _ := strconv.Atoi(string(m[1])); n > 1<<20 {
		t.Errorf("initialising the package allocated %d bytes, want under 1 MiB (the built-in schema is built on first use)", n)
	}
}
