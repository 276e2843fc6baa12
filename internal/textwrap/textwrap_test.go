package textwrap

import "testing"

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"short line", 20, "short line"},
		{"no width keeps everything", 0, "no width keeps everything"},
		// continuation lines align with the second column (after the run of spaces)
		{"  --flag value   the usage of the flag here", 40, "  --flag value   the usage of the flag\n                 here"},
		// a word longer than the width stays whole
		{"a verylongwordthatdoesnotfit b", 10, "a\nverylongwordthatdoesnotfit\nb"},
		// a second column past half the width: continuation indented by 4 from the line's indent
		{"  a-very-long-first-column   text goes here", 30, "  a-very-long-first-column\n      text goes here"},
		{"      evidence: words words words", 21, "      evidence: words\n      words words"},
	} {
		if got := Line(tc.in, tc.width); got != tc.want {
			t.Errorf("Line(%q, %d):\n got %q\nwant %q", tc.in, tc.width, got, tc.want)
		}
	}
	if got, want := Hanging("apps/Deployment shop/web (apps/v1, applied by kapp)", 30, 4), "apps/Deployment shop/web\n    (apps/v1, applied by kapp)"; got != want {
		t.Errorf("Hanging: %q, want %q", got, want)
	}
	if got := Lines("a b c\n\nd e f\n", 3); got != "a b\nc\n\nd e\nf\n" {
		t.Errorf("Lines: %q", got)
	}
}
