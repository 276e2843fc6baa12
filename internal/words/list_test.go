package words

import "testing"

func TestList(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, ""},
		{2, "a0, a1"},
		{3, "a0, a1, a2"}, // one more than max: named, never "(and 1 more)"
		{4, "a0, a1 (and 2 more)"},
	} {
		items := make([]string, tc.n)
		for i := range items {
			items[i] = "a" + string(rune('0'+i))
		}
		if got := List(items, 2); got != tc.want {
			t.Errorf("List(%d items, 2) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
