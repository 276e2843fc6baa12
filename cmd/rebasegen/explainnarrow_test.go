package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestExplainNarrowFitsLongValues (issue 24, newcomer9 N9-8): explain at 60 and 80 columns, in
// colour as on a terminal, fits every line, in the list and the grouped view, on fixtures whose
// defaulted values are long JSON objects (a Deployment's strategy, a StatefulSet's update
// strategy and claim retention policy): such a value has no space to wrap at, and was put on its
// own line 26 columns in (the class's colour escapes counted as columns) and cut at its fixed
// length, 6 columns past a 60-column edge. The oracle is each line's width without the escapes.
func TestExplainNarrowFitsLongValues(t *testing.T) {
	escapes := regexp.MustCompile("\x1b\\[[0-9;]*m")
	for _, fixture := range []string{"image-pull-policy", "nested-templates"} {
		in := append([]string{"explain", "--color", "always"}, scenario(t, fixture)...)
		for _, width := range []int{60, 80} {
			t.Setenv("COLUMNS", fmt.Sprint(width))
			for _, view := range [][]string{nil, {"--group"}} {
				r := rebasegen(t, append(in, view...)...)
				if r.code != 0 || !strings.Contains(r.stdout, "{\"") {
					t.Fatalf("%s %v at %d: exit %d, no long value shown\n%s%s", fixture, view, width, r.code, r.stdout, r.stderr)
				}
				for _, l := range strings.Split(escapes.ReplaceAllString(r.stdout, ""), "\n") {
					if n := utf8.RuneCountInString(l); n > width {
						t.Errorf("%s %v at %d columns: line of %d: %q", fixture, view, width, n, l)
					}
				}
			}
		}
	}
}
