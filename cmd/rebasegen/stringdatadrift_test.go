package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression (newcomer walkthrough 4, item 2): a kubectl edit of a Secret's value where the
// manifest gives it as stringData (the live object holds only data; managedFields credit
// kubectl-edit with the value). The edit is drift; the stringData-to-data form of the values
// is no change, and stays ruled. The stringData finding disappeared as soon as one value
// differed: regenerating dropped the rule folding it (stale), and check called kapp's update a
// residual ghost diff (exit 3 without --fail-on-drift). Derived from package-app's Secret as
// captured.
func TestStringDataDriftIsDriftAndTheFormIsRuled(t *testing.T) {
	dir := t.TempDir()
	secretDoc := func(file string) string {
		bs, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "package-app", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range strings.Split(string(bs), "\n---\n") {
			if strings.Contains(d, "\nkind: Secret\n") {
				return strings.TrimPrefix(d, "---\n") + "\n"
			}
		}
		t.Fatalf("package-app's %s holds no Secret", file)
		return ""
	}
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	desired := write("desired.yaml", secretDoc("desired.yaml"))
	live := secretDoc("live.yaml")
	const (
		stored = "  password: bm90LWEtcmVhbC1wYXNzd29yZA==\n"
		edit   = `  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        f:password: {}
    manager: kubectl-edit
    operation: Update
    time: "2026-11-26T02:00:00Z"
`
	)
	if !strings.Contains(live, stored) || !strings.Contains(live, "  managedFields:\n") {
		t.Fatal("package-app's Secret changed: update the test")
	}
	capturedLive := write("live.yaml", live)
	edited := strings.Replace(live, stored, "  password: "+base64.StdEncoding.EncodeToString([]byte("edited-by-hand"))+"\n", 1)
	editedLive := write("edited.yaml", strings.Replace(edited, "  managedFields:\n", "  managedFields:\n"+edit, 1))
	rules := filepath.Join(dir, "rules.yml")
	in := func(live string) []string { return []string{"-d", desired, "-l", live, "-n", "package-app"} }
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, in(capturedLive)...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	const drift = "drift: core/Secret package-app/shop-db data.password"
	for _, tc := range []struct {
		flags []string
		code  int
		want  []string
	}{
		{nil, 0, []string{"warning: " + drift + ": managedFields: kubectl-edit changed it", "0 residual ghost diffs, 0 unknown fields, 0 stale generated files, 1 drift warning"}},
		{[]string{"--fail-on-drift"}, 3, []string{"error: " + drift, "0 residual ghost diffs, 0 unknown fields, 0 stale generated files, 1 drift error"}},
		{[]string{"--output", "github"}, 0, []string{"::warning file=" + desired + ",line=1::" + drift}},
		{[]string{"--output", "json"}, 0, []string{`"path": "data.password"`, `"class": "drift"`, `"residual": []`, `"stale": []`}},
	} {
		res := rebasegen(t, append(append([]string{"check", "--rules", rules}, in(editedLive)...), tc.flags...)...)
		ok := res.code == tc.code && !strings.Contains(res.stdout, "residual ghost diff:") && !strings.Contains(res.stdout, "edited-by-hand") && !strings.Contains(res.stdout, "not-a-real-password")
		for _, w := range tc.want {
			ok = ok && strings.Contains(res.stdout, w)
		}
		if !ok {
			t.Errorf("check %v: exit %d, want %d, %q, no residual and no value:\n%s%s", tc.flags, res.code, tc.code, tc.want, res.stdout, res.stderr)
		}
	}
	res := rebasegen(t, append([]string{"explain", "--wide"}, in(editedLive)...)...)
	for _, w := range []string{"  stringData ", " calculated ", "  data.password ", " drift "} {
		if !strings.Contains(res.stdout, w) {
			t.Errorf("explain: want %q (the form calculated, the edit drift):\n%s", w, res.stdout)
		}
	}
}
