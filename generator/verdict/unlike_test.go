package verdict

import (
	"strconv"
	"strings"
	"testing"
)

// TestUnlikeKeepsNoneOfWhatMutateKeeps: each draw differs from the value in what mutate's draw
// keeps (probe10 P10-1): a string's length and its text before its last run of letters and
// digits, an integer's number of digits.
func TestUnlikeKeepsNoneOfWhatMutateKeeps(t *testing.T) {
	digits := func(n int64) int { return len(strings.TrimPrefix(strconv.FormatInt(n, 10), "-")) }
	for range 2000 {
		for _, s := range []string{"nginx:1.25", "a", "100m", "x-1", "registry.example/team/app:v1"} {
			got, _ := unlike(s)
			g := got.(string)
			before := s[:strings.LastIndexAny(s, ":-")+1]
			if len(g) == len(s) || before != "" && strings.HasPrefix(g, before) {
				t.Fatalf("unlike(%q) = %q: its length or its text before the last run kept", s, g)
			}
		}
		for _, n := range []int64{0, 5, 80, -443, 123456789012} {
			if got, _ := unlike(n); digits(got.(int64)) == digits(n) {
				t.Fatalf("unlike(%d) = %d: as many digits", n, got)
			}
		}
	}
}
