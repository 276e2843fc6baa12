package words

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 rules", 1: "1 rule", 2: "2 rules", 11: "11 rules"} {
		if got := Count(n, "rule"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
