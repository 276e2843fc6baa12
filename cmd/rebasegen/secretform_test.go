package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Regression (issue 24, newcomer5 F9): a generated rules Secret serialised again, as kubectl or
// yq write it (the comments above the Secret gone, stringData a quoted string, data
// base64-encoded, JSON), was no longer recognised as generated: a hand edit of its rules was not
// stale, exit 0. It is recognised by the header and the digest of the rules its key holds, in
// every form kapp-controller reads: as generated it is not stale, edited (a rule added, or a
// comment changed) it is, at the key's line.
func TestStaleSecretInEveryForm(t *testing.T) {
	in := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	file := filepath.Join(dir, "secret.yml")
	if r := rebasegen(t, append([]string{"generate"}, append(in, "--output", "secret", "--package-install", "hpa-replicas/web", "--output-file", file)...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	written := readFile(t, file)
	const key = "  rebase-rules.yml: |\n"
	at := strings.Index(written, key)
	if at < 0 || !strings.HasPrefix(written, "#! Rebase rules for the PackageInstall") {
		t.Fatalf("not the Secret format:\n%s", written)
	}
	var body strings.Builder
	for _, l := range strings.SplitAfter(written[at+len(key):], "\n") {
		body.WriteString(strings.TrimPrefix(l, "    "))
	}
	rules := body.String()
	const meta = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-rebase-rules\n  namespace: hpa-replicas\n"
	forms := map[string]func(rules string) string{
		"block, no comments above": func(r string) string {
			return meta + "stringData:\n" + key + "    " + strings.ReplaceAll(strings.TrimSuffix(r, "\n"), "\n", "\n    ") + "\n"
		},
		"stringData quoted": func(r string) string { return meta + "stringData:\n  rebase-rules.yml: " + strconv.Quote(r) + "\n" },
		"data base64": func(r string) string {
			return meta + "data:\n  rebase-rules.yml: " + base64.StdEncoding.EncodeToString([]byte(r)) + "\n"
		},
		"JSON": func(r string) string {
			b, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "web-rebase-rules", "namespace": "hpa-replicas"},
				"stringData": map[string]any{"rebase-rules.yml": r}}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			return string(b) + "\n"
		},
	}
	const added = "- type: copy\n  sources: [existing]\n  paths:\n  - [spec, paused]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n"
	if !strings.Contains(rules, "#! defaulted: apps/Deployment") {
		t.Fatalf("no comment to edit in the rules:\n%s", rules)
	}
	edits := map[string]string{
		"as generated":      rules,
		"a rule added":      rules + added,
		"a comment changed": strings.Replace(rules, "#! defaulted: apps/Deployment", "#! DEFAULTED: apps/Deployment", 1),
	}
	for form, write := range forms {
		for edit, r := range edits {
			t.Run(form+", "+edit, func(t *testing.T) {
				name := filepath.Join(t.TempDir(), "rules.yml")
				if form == "JSON" {
					name = strings.TrimSuffix(name, ".yml") + ".json"
				}
				if err := os.WriteFile(name, []byte(write(r)), 0o644); err != nil {
					t.Fatal(err)
				}
				res := rebasegen(t, append(append([]string{"check"}, in...), "--rules", name)...)
				stale := edit != "as generated"
				switch {
				case stale && (res.code != 3 || !strings.Contains(res.stdout, "stale: "+name+" would change (line ") || !strings.Contains(res.stdout, "1 stale generated file")):
					t.Errorf("want stale, exit 3; exit %d:\n%s%s", res.code, res.stdout, res.stderr)
				case stale && edit == "a rule added" && !strings.Contains(res.stdout, "-      - [spec, paused]\n"):
					t.Errorf("the diff does not remove the rule added:\n%s", res.stdout)
				case stale && edit == "a comment changed" && !strings.Contains(res.stdout, "its header's digest does not match its content"):
					t.Errorf("want the digest named:\n%s", res.stdout)
				case !stale && (res.code != 0 || !strings.Contains(res.stdout, "0 stale generated files")):
					t.Errorf("want not stale, exit 0; exit %d:\n%s%s", res.code, res.stdout, res.stderr)
				}
			})
		}
	}
}
