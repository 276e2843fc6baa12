package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestExplainFitsEveryFixture (issue 24 point 7): explain in a pipe lays every captured scenario
// out for 80 columns, in the list and in the grouped view: a line wider than that is one word no
// space or field path segment can break (a source file's name), never a field path, which breaks
// before a segment. A container port's protocol path was 87 columns.
func TestExplainFitsEveryFixture(t *testing.T) {
	t.Setenv("COLUMNS", "")
	dirs, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "*", "live.yaml"))
	if err != nil || len(dirs) < 20 {
		t.Fatalf("fixtures: %d (%v)", len(dirs), err)
	}
	for _, live := range dirs {
		in := []string{"-q", "--color", "never", "-d", filepath.Join(filepath.Dir(live), "desired.yaml"), "-l", live}
		if _, err := os.Stat(in[4]); err != nil {
			continue
		}
		r := rebasegen(t, append([]string{"explain", "-o", "json"}, in...)...)
		var rep struct {
			Resources []struct{ Fields []struct{ Path string } }
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%s: explain -o json: %v\n%s", live, err, r.stderr)
		}
		var paths []string
		for _, res := range rep.Resources {
			for _, f := range res.Fields {
				paths = append(paths, f.Path)
			}
		}
		for _, view := range [][]string{{"explain"}, {"explain", "--group"}} {
			out := rebasegen(t, append(view, in...)...).stdout
			for _, l := range strings.Split(out, "\n") {
				if utf8.RuneCountInString(l) <= 80 {
					continue
				}
				word := strings.TrimSpace(l)
				inPath := false
				for _, p := range paths {
					inPath = inPath || strings.Contains(p, word)
				}
				if strings.Contains(word, " ") || inPath {
					t.Errorf("%s %s: line of %d columns: %q", strings.Join(view, " "), filepath.Dir(live), utf8.RuneCountInString(l), l)
				}
			}
		}
	}
}
