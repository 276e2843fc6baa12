package load

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The regular expressions the separator functions replaced (for speed): the oracle they are
// checked against.
var (
	separatorRE    = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)
	badSeparatorRE = regexp.MustCompile(`(?m)^---[ \t]*[^\s#]`)
)

// FuzzSeparatorsAsRegexps: separators, badSeparator and onlyComments find what the regular
// expressions and the comment stripping they replaced found, on any bytes.
func FuzzSeparatorsAsRegexps(f *testing.F) {
	for _, data := range fixtureFiles(f) {
		f.Add(data)
	}
	for _, s := range []string{
		"", "---", "---\n", "--- \t\n", "---#x\n", "--- # c\n---x", "----\n", "--- \v\n", "--- \f\n", "---\r\n",
		"a\n---  é\n", "a: 1\n  ---\n", "\n---\n\n---", "--- \xff\n", "# only\n  # comments\n\n", " \u00a0\n", "x\n# c",
		"---\t#\n--- a\n", "a\r\n---\r\n# c\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want [][2]int
		for _, m := range separatorRE.FindAllIndex(data, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		if got := separators(data); !slices.Equal(got, want) {
			t.Errorf("separators(%q) = %v, the regexp finds %v", data, got, want)
		}
		want1 := -1
		if m := badSeparatorRE.FindIndex(data); m != nil {
			want1 = m[0]
		}
		if got := badSeparator(data); got != want1 {
			t.Errorf("badSeparator(%q) = %d, the regexp finds %d", data, got, want1)
		}
		var kept []string
		for _, l := range strings.Split(string(data), "\n") {
			if t := strings.TrimSpace(l); len(t) > 0 && t[0] != '#' {
				kept = append(kept, t)
			}
		}
		if got, want := onlyComments(data), len(kept) == 0; got != want {
			t.Errorf("onlyComments(%q) = %v, want %v", data, got, want)
		}
	})
}
