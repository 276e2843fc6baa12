package verdict

import (
	"regexp"
	"strconv"
	"testing"
)

// Mutated values look like the declared ones (issue 23): a string keeps all but its last run of
// letters and digits, redrawn in the same classes; an integer keeps its sign and digits. Random
// text (base32 capitals) and a step of up to 2^20 looked like no real value, so a rule keyed to
// what real values look like let every mutation through.
func TestMutatedValuesKeepTheirShape(t *testing.T) {
	for _, tc := range []struct {
		value any
		shape string // the mutated value's, as a regular expression
	}{
		{"nginx:1.25", `^nginx:1\.[0-9]{2}$`},
		{"registry.example.com/team/app:v1.2.3", `^registry\.example\.com/team/app:v1\.2\.[0-9]$`},
		{"backups", `^[a-z]{7}$`},
		{"ClusterIP", `^[A-Z][a-z]{6}[A-Z]{2}$`},
		{"sha256:0f3a9c", `^sha256:[0-9a-f]{6}$`},
		{"web-", `^[a-z]{3}-$`},
		{"", `^.+$`},
		{int64(5433), `^[0-9]{4}$`},
		{int64(-7), `^-[0-9]$`},
		{int64(0), `^[0-9]$`},
	} {
		seen := map[any]bool{}
		for range 20 {
			m, ok := mutate(tc.value)
			s, isString := m.(string)
			if n, isInt := m.(int64); isInt {
				s, isString = strconv.FormatInt(n, 10), true
			}
			if !ok || !isString || m == tc.value || !regexp.MustCompile(tc.shape).MatchString(s) {
				t.Fatalf("%#v mutated to %#v, want another value matching %s", tc.value, m, tc.shape)
			}
			seen[m] = true
		}
		if len(seen) < 3 {
			t.Errorf("%#v: 20 mutations gave %d values: not random", tc.value, len(seen))
		}
	}
}
