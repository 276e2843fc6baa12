package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifestsAsRules (newcomer5 F7): manifests given as --rules on the kapp target are one
// input error naming the file and what it holds; check judged them as no rules at all (a note
// that lint was skipped, every ghost diff residual, exit 3). A path holding rules among other
// objects and a rules Secret are read as before.
func TestManifestsAsRules(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	desired := fix[1]
	for _, tc := range []struct {
		name, rules string
		want        []string
	}{
		{"manifests", desired, []string{"--rules " + desired + " holds no kapp rules", "only objects kapp would deploy, the first apps/v1 Deployment web (" + desired + ": document 1 (line 1))", "manifests go to --desired"}},
		{"an Argo CD Application", filepath.Join("..", "..", "examples", "argocd", "index-pointer.yml"), []string{"holds no kapp rules", "only Argo CD's settings, the first argoproj.io/v1alpha1 Application argocd/my-app", "check --target argocd"}},
	} {
		r := rebasegen(t, append([]string{"check", "--rules", tc.rules}, fix...)...)
		if r.code != exitError || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s as --rules: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1, one line on stderr", tc.name, r.code, r.stdout, r.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s as --rules: stderr %q, want %q", tc.name, r.stderr, w)
			}
		}
	}

	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	secret := filepath.Join(dir, "secret.yml")
	if r := rebasegen(t, append([]string{"generate", "-o", "secret", "--package-install", "shop", "--output-file", secret}, fix...)...); r.code != 0 {
		t.Fatalf("generate -o secret: exit %d\n%s", r.code, r.stderr)
	}
	// the manifests and the rules in one file, given as both: the rules are in force from --desired
	both := filepath.Join(dir, "both.yaml")
	if err := os.WriteFile(both, []byte(readFile(t, desired)+"---\n"+readFile(t, rules)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"generated rules", append([]string{"--rules", rules}, fix...)},
		{"a rules Secret", append([]string{"--rules", secret}, fix...)},
		{"manifests and rules in one file", []string{"-d", both, "-l", fix[3], "-n", fix[5], "--rules", both}},
	} {
		r := rebasegen(t, append([]string{"check"}, tc.args...)...)
		if strings.Contains(r.stderr, "holds no kapp rules") || r.code == exitError {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant it read as rules", tc.name, r.code, r.stderr)
		}
	}
}

// TestEmptyRulesFile (newcomer10 N10-2): a --rules file holding nothing (a failed `kubectl ...
// -o yaml > rules.yml`: empty, comment-only, only `---`, null) is refused by check as lint refuses
// it, naming the file: check judged it as no rules at all, every ghost diff residual annotated on
// line 1 of the empty file, exit 3.
func TestEmptyRulesFile(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	for name, content := range map[string]string{"empty": "", "comment": "# just a comment\n", "separators": "---\n---\n", "null": "null\n"} {
		rules := filepath.Join(dir, name+".yml")
		if err := os.WriteFile(rules, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		lint := rebasegen(t, "lint", "--rules", rules)
		if lint.code != exitError || !strings.Contains(lint.stderr, "no kapp Config") || !strings.Contains(lint.stderr, rules) {
			t.Fatalf("%s: lint: exit %d, stderr:\n%s\nwant its refusal naming %s", name, lint.code, lint.stderr, rules)
		}
		for _, format := range []string{"text", "github"} {
			r := rebasegen(t, append([]string{"check", "-o", format, "--rules", rules}, fix...)...)
			if r.code != exitError || r.stdout != "" || r.stderr != lint.stderr {
				t.Errorf("%s, -o %s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1, nothing on stdout, lint's refusal:\n%s", name, format, r.code, r.stdout, r.stderr, lint.stderr)
			}
		}
	}
}

// An ordinary Secret among manifests given as --rules (newcomer6 N6-3): its data.unset: null,
// which the API server accepts and stores as "", is no rules Secret's mistake (it holds no
// rebase-rules.yml): the manifests are named as such, with where they go, and lint of a file
// holding rules beside them finds nothing wrong with the Secret. Old code: check stopped on
// "Secret data.unset is not a string", lint called it an error.
func TestOrdinarySecretAmongManifestsAsRules(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	const secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-credentials\ntype: Opaque\ndata:\n  unset: null\n"
	manifests := filepath.Join(dir, "manifests.yaml")
	if err := os.WriteFile(manifests, []byte(readFile(t, fix[1])+"---\n"+secret), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, append([]string{"check", "--rules", manifests}, fix...)...)
	if r.code != exitError || !strings.Contains(r.stderr, "--rules "+manifests+" holds no kapp rules") || !strings.Contains(r.stderr, "manifests go to --desired") {
		t.Errorf("check --rules manifests with a Secret: exit %d, stderr:\n%s\nwant exit 1, the manifests named as such", r.code, r.stderr)
	}
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	both := filepath.Join(dir, "both.yaml")
	if err := os.WriteFile(both, []byte(readFile(t, rules)+"---\n"+secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := rebasegen(t, "lint", "--rules", both); r.code != 0 || strings.Contains(r.stdout+r.stderr, "Secret") {
		t.Errorf("lint of rules beside an ordinary Secret: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0, nothing about the Secret", r.code, r.stdout, r.stderr)
	}
}

// A capture directory given as --rules (or -l and -r swapped) named no flag: its
// server-version.json was "not a Kubernetes object"; its live.yaml was "manifests go to
// --desired". Both are named for --live, by check and lint alike (newcomer18 N18-1, issue 24).
func TestCaptureAsRules(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := filepath.Join(t.TempDir(), "live")
	copyTo(t, filepath.Join(filepath.Dir(fix[3]), "server-version.json"), dir, "server-version.json")
	live := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(live, []byte(capturedFile(readFile(t, fix[3]))), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"check", "-r", dir}, fix...), "rebasegen: --rules " + dir + ": a directory rebasegen capture wrote (it holds server-version.json): it goes to --live"},
		{[]string{"lint", "-r", dir}, "rebasegen: --rules " + dir + ": a directory rebasegen capture wrote (it holds server-version.json): it goes to --live"},
		{append([]string{"check", "-r", live}, fix...), "rebasegen: --rules " + live + " holds no kapp rules (a kapp Config, a ConfigMap labelled kapp.k14s.io/config or a Secret holding rebase-rules.yml), only live objects rebasegen capture read from the cluster, the first "},
	} {
		r := rebasegen(t, tc.args...)
		if r.code != exitError || r.stdout != "" || !strings.HasPrefix(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("rebasegen %v: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and one line starting %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	if r := rebasegen(t, append([]string{"check", "-r", live}, fix...)...); !strings.HasSuffix(r.stderr, ": live objects go to --live\n") {
		t.Errorf("check -r %s: stderr %q, want it to end naming --live", live, r.stderr)
	}
}
