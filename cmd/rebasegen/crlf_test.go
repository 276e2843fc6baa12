package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var digest = regexp.MustCompile(`(?m)^#! Digest: sha256:[0-9a-f]+$`)

// TestCRLFInputs: desired and live files with CRLF line endings (Windows, git's autocrlf) are read
// in full, as kapp reads them: explain and generate say what they say of the LF files (the
// regression: only the first document of each file was read, the rest called "kapp would create
// it", exit 0).
func TestCRLFInputs(t *testing.T) {
	args := scenario(t, "package-app")
	dir := t.TempDir()
	crlf := append([]string(nil), args...)
	for _, i := range []int{1, 3} {
		data, err := os.ReadFile(args[i])
		if err != nil {
			t.Fatal(err)
		}
		crlf[i] = filepath.Join(dir, filepath.Base(args[i]))
		if err := os.WriteFile(crlf[i], []byte(strings.ReplaceAll(string(data), "\n", "\r\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range [][]string{{"explain", "--color", "never"}, {"generate"}} {
		lf, cr := rebasegen(t, append(cmd, args...)...), rebasegen(t, append(cmd, crlf...)...)
		for i := range []int{1, 3} {
			cr.stdout = strings.ReplaceAll(cr.stdout, crlf[2*i+1], args[2*i+1])
		}
		// the header's digest covers the input names, which differ
		lf.stdout, cr.stdout = digest.ReplaceAllString(lf.stdout, ""), digest.ReplaceAllString(cr.stdout, "")
		if lf.code != cr.code || lf.stdout != cr.stdout || lf.stderr != cr.stderr {
			t.Errorf("%s with CRLF files: exit %d\n%s%s\nwith LF files: exit %d\n%s%s", cmd[0], cr.code, cr.stdout, cr.stderr, lf.code, lf.stdout, lf.stderr)
		}
	}
}
