package emit

import "testing"

// A rewritten value in a rule's comment reads as the manifest could write it: JSON for maps and
// lists, not Go's map[...] syntax (newcomer24 finding 3: `spec (map[webhooks:[map[...` in a
// generated rule's comment).
func TestShownValuesAreJSON(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{"", `""`},
		{"500m", "500m"},
		{false, "false"},
		{int64(0), "0"},
		{[]any{}, "[]"},
		{map[string]any{"webhooks": []any{map[string]any{"name": "a&b", "sideEffects": "None"}}}, `{"webhooks":[{"name":"a&b","sideEffects":"None"}]}`},
	} {
		if got := shown(tc.v); got != tc.want {
			t.Errorf("shown(%#v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}
