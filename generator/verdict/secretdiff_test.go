package verdict

import (
	"strings"
	"testing"
)

// secretShown masks every value of a Secret's data and stringData but the rules, whatever the
// YAML style of the value, and leaves every other document alone.
func TestSecretShownMasksEveryValueButTheRules(t *testing.T) {
	text := "apiVersion: v1\nkind: ConfigMap\ndata: {a: CMVALUE}\n---\n" +
		"apiVersion: v1\nkind: Secret\ndata: {p: FLOWVALUE,\n  q: FLOWVALUE2}\nstringData:\n" +
		"  rebase-rules.yml: |\n    kind: Config\n  \"odd key\": >-\n    FOLDED\n\n    FOLDED2\n  plain: PLAIN\n    CONTINUED\n" +
		"type: Opaque\n"
	got, ok := secretShown(text)
	if !ok {
		t.Fatal("not read as YAML")
	}
	for _, v := range []string{"FLOWVALUE", "FOLDED", "PLAIN", "CONTINUED"} {
		if strings.Contains(got, v) {
			t.Errorf("%s shown:\n%s", v, got)
		}
	}
	for _, kept := range []string{"data: {a: CMVALUE}", "data: " + notShown, "  rebase-rules.yml: |\n    kind: Config\n", `  "odd key": ` + notShown, "  plain: " + notShown + "\ntype: Opaque\n"} {
		if !strings.Contains(got, kept) {
			t.Errorf("want %q in:\n%s", kept, got)
		}
	}
	if _, ok := secretShown("kind: Secret\ndata: [\n"); ok {
		t.Error("YAML that does not parse is shown")
	}
}
