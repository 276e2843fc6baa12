package emit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A field path wider than the line breaks before a segment, never inside a list item's keys or a
// quoted map key (whose dots, brackets and escaped quotes are not segments), and fits.
func TestPathLineBreaksBetweenSegments(t *testing.T) {
	for _, tc := range []struct {
		path, rest string
		width      int
		want       string
	}{
		{"spec.template.spec.containers[name=web].ports[containerPort=80,protocol=TCP].protocol", "", 80,
			"  spec.template.spec.containers[name=web].ports[containerPort=80,protocol=TCP]\n    .protocol"},
		{`metadata.annotations["a.b/c[d]\"e.f"].x`, " in shop/web", 30,
			"  metadata.annotations\n    [\"a.b/c[d]\\\"e.f\"].x in\n    shop/web"},
		{"webhooks[name=mutate.example.dev].clientConfig.service.port", "", 40,
			"  webhooks[name=mutate.example.dev]\n    .clientConfig.service.port"},
		{"spec.short", ": a warning", 80, "  spec.short: a warning"},
		{"spec.template.spec.containers[name=web].ports[containerPort=80,protocol=TCP].protocol", "", 0,
			"  spec.template.spec.containers[name=web].ports[containerPort=80,protocol=TCP].protocol"},
	} {
		got := pathLine("  ", tc.path, tc.rest, tc.width)
		if got != tc.want {
			t.Errorf("pathLine(%q, %d):\n got %q\nwant %q", tc.path, tc.width, got, tc.want)
		}
		if tc.rest == "" && strings.ReplaceAll(got, "\n    ", "") != "  "+tc.path {
			t.Errorf("pathLine(%q): the path is not whole once its lines are joined: %q", tc.path, got)
		}
		for _, l := range strings.Split(got, "\n") {
			if tc.width > 0 && utf8.RuneCountInString(l) > tc.width {
				t.Errorf("pathLine(%q, %d): line of %d columns: %q", tc.path, tc.width, utf8.RuneCountInString(l), l)
			}
		}
	}
}
