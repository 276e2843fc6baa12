package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func lintFixture(name string) string {
	return filepath.Join("..", "..", "fixtures", "lint", name, "rules.yml")
}

func TestLintExitCodes(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"warnings only", []string{"--rules", lintFixture("default-webhook-cabundle")}, 0},
		{"errors", []string{"--rules", lintFixture("invalid-type")}, exitLint},
		{"errors and warnings in a directory", []string{"--rules", filepath.Join("..", "..", "fixtures", "lint")}, exitLint},
		{"no --rules", nil, exitError},
		{"bad --output", []string{"--rules", lintFixture("invalid-type"), "--output", "xml"}, exitError},
		{"missing file", []string{"--rules", "no-such-file.yml"}, exitError},
		{"no Config in the file", []string{"--rules", filepath.Join("..", "..", "fixtures", "hpa-replicas", "desired.yaml")}, exitError},
		{"positional argument", []string{"--rules", lintFixture("invalid-type"), "rules.yml"}, exitError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rebasegen(t, append([]string{"lint"}, c.args...)...)
			if r.code != c.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestLintText(t *testing.T) {
	file := lintFixture("invalid-type")
	r := rebasegen(t, "lint", "--rules", file)
	want := file + `:8: error: rebaseRules[0]: type "copyy" is not copy or remove: kapp panics when it applies the rule
    suggestion: type: copy or type: remove
1 error, 0 warnings
`
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	if r.code != exitLint || r.stderr != "" { // the summary once, on stdout (issue 18)
		t.Errorf("exit %d, stderr: %q", r.code, r.stderr)
	}
}

func TestLintGitHub(t *testing.T) {
	file := lintFixture("invalid-type")
	r := rebasegen(t, "lint", "--rules", file, "--output", "github")
	// the summary once, a notice ending the annotations as check's does (newcomer5 F7: it was
	// plain text on stderr)
	want := "::error file=" + file + `,line=8::rebaseRules[0]: type "copyy" is not copy or remove: kapp panics when it applies the rule%0Asuggestion: type: copy or type: remove` + "\n" +
		"::notice::1 error, 0 warnings\n"
	if r.code != exitLint || r.stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}

	r = rebasegen(t, "lint", "--rules", lintFixture("allmatcher-status"), "-o", "github")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "::warning file=") || strings.Count(r.stdout, "\n") != 3 || !strings.HasSuffix(r.stdout, "\n::notice::0 errors, 2 warnings\n") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

func TestLintJSON(t *testing.T) {
	args := []string{"lint", "--rules", lintFixture("stale-apiversion"), "--output", "json",
		"-d", filepath.Join("..", "..", "fixtures", "lint", "stale-apiversion", "desired.yaml"), "-n", "harbor"}
	r := rebasegen(t, args...)
	var got struct {
		Version  int
		Findings []map[string]any
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if r.code != 0 || got.Version != 1 || len(got.Findings) != 1 {
		t.Fatalf("exit %d, %s", r.code, r.stdout)
	}
	f := got.Findings[0]
	for k, v := range map[string]any{"severity": "warning", "file": lintFixture("stale-apiversion"), "line": 12.0, "rule": 0.0,
		"message":    "apiVersionKindMatcher {apiVersion: apps/v1beta1, kind: Deployment} matches none of the desired objects",
		"suggestion": "the desired Deployment objects have apiVersion apps/v1"} {
		if f[k] != v {
			t.Errorf("%s: %v, want %v", k, f[k], v)
		}
	}

	r = rebasegen(t, "lint", "--rules", lintFixture("stale-apiversion"), "--output", "json") // no --desired: nothing to match
	if r.code != 0 || r.stdout != "{\n  \"version\": 1,\n  \"findings\": []\n}\n" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestLintInfersNamespace (issue 12 item 5f): lint -d -l without -n gives desired objects
// without a namespace the one their live counterparts are in, as explain, generate and check
// do; it used to put them in "default", so the rules generate writes for the scenario matched
// nothing.
func TestLintInfersNamespace(t *testing.T) {
	fix := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "-q", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	r := rebasegen(t, "lint", "-r", rules, fix[0], fix[1], fix[2], fix[3])
	if r.code != 0 || strings.Contains(r.stdout, "match") || !strings.Contains(r.stderr, "note: namespace "+fix[5]+" inferred from the live objects") {
		t.Errorf("lint without -n: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := rebasegen(t, append([]string{"lint", "-r", rules}, fix...)...); r.code != 0 || strings.Contains(r.stdout, "match") || r.stderr != "" {
		t.Errorf("lint -n %s: exit %d\nstdout:\n%s\nstderr:\n%s", fix[5], r.code, r.stdout, r.stderr)
	}
}

// TestLintSaysItAssumedDefault (newcomer11 N11-6): lint -d without -n and without live objects
// put the desired objects without a namespace into default and said nothing, so every name of
// rules generated for the install namespace "matched none of the desired objects" (35 warnings
// for a package's Secret) with no hint why; it says so, and -n takes the note away.
func TestLintSaysItAssumedDefault(t *testing.T) {
	fix := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	rules := filepath.Join(t.TempDir(), "rules.yml")
	os.WriteFile(rules, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, replicas]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}
`), 0o644)
	note := "note: namespace default assumed for the desired objects without one (no -n, and no live object to infer it from): -n to choose the namespace the package is installed into\n"
	r := rebasegen(t, "lint", "-r", rules, fix[0], fix[1])
	if r.code != 0 || !strings.Contains(r.stdout, "matches none of the desired objects") || r.stderr != note {
		t.Errorf("lint without -n: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := rebasegen(t, "lint", "-r", rules, fix[0], fix[1], fix[4], fix[5]); r.code != 0 || strings.Contains(r.stdout, "match") || r.stderr != "" {
		t.Errorf("lint -n %s: exit %d\nstdout:\n%s\nstderr:\n%s", fix[5], r.code, r.stdout, r.stderr)
	}
}

// TestLintTakesTheRulesSecretsNamespace (newcomer13 N13-4): the rules Secret generate wrote for a
// PackageInstall, linted against the manifests without -n and without live objects, was judged
// with the objects in default: every name in it (the install namespace's, where kapp-controller
// installs them) "matched none of the desired objects", with a suggestion that would break it. The
// Secret is the PackageInstall's namespace's: lint takes it, says so, and -n still chooses.
func TestLintTakesTheRulesSecretsNamespace(t *testing.T) {
	fix := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	secret := filepath.Join(t.TempDir(), "secret.yml")
	if r := rebasegen(t, append([]string{"generate", "-q", "-o", "secret", "--package-install", fix[5] + "/web", "--output-file", secret}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	r := rebasegen(t, "lint", "-r", secret, fix[0], fix[1])
	want := "note: namespace " + fix[5] + " taken for the desired objects without one from the rules Secret's (the PackageInstall's, into which kapp-controller installs them): -n to choose\n"
	if r.code != 0 || r.stdout != "0 errors, 0 warnings\n" || r.stderr != want {
		t.Errorf("lint without -n: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := rebasegen(t, "lint", "-r", secret, fix[0], fix[1], "-n", "elsewhere"); r.code != 0 || !strings.Contains(r.stdout, "matches none of the desired objects") || r.stderr != "" {
		t.Errorf("lint -n elsewhere: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestLintRendersYTTRulesWithValues: lint reads a rules file generate wrote with --output ytt as
// check does, rendered with --value; it read the #@ lines as plain YAML and warned that the
// matcher's namespace <nil> matches nothing.
func TestLintRendersYTTRulesWithValues(t *testing.T) {
	fix := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "-q", "-o", "ytt", "--namespace-value", "namespace", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	desired := []string{"-r", rules, fix[0], fix[1], fix[4], fix[5]}
	if r := rebasegen(t, append([]string{"lint", "--value", "namespace=" + fix[5]}, desired...)...); r.code != 0 || r.stdout != "0 errors, 0 warnings\n" {
		t.Errorf("lint --value namespace=%s: exit %d\nstdout:\n%s\nstderr:\n%s", fix[5], r.code, r.stdout, r.stderr)
	}
	r := rebasegen(t, append([]string{"lint", "--value", "namespace=elsewhere"}, desired...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "namespace: elsewhere} matches none of the desired objects") {
		t.Errorf("lint --value namespace=elsewhere: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestYTTRulesNeedAValue: check and lint on ytt rules that read a data value nobody passed say so
// in one line naming the file, its line and the --value to pass; they printed ytt's call stack.
func TestYTTRulesNeedAValue(t *testing.T) {
	fix := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "-q", "-o", "ytt", "--namespace-value", "namespace", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(string(data[:strings.Index(string(data), "data.values.namespace")]), "\n")
	secret := filepath.Join(dir, "secret.yml")
	if err := os.WriteFile(secret, []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: web-rebase-rules}\nstringData:\n  rebase-rules.yml: |\n    #@ load(\"@ytt:data\", \"data\")\n    --- #@ {\"apiVersion\": \"kapp.k14s.io/v1alpha1\", \"kind\": \"Config\", \"rebaseRules\": [{\"path\": [\"spec\", \"replicas\"], \"type\": \"copy\", \"sources\": [\"existing\", \"new\"], \"resourceMatchers\": [{\"kindNamespaceNameMatcher\": {\"kind\": \"Deployment\", \"namespace\": data.values.ns, \"name\": \"web\"}}]}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{rules, fmt.Sprintf("rebasegen: %s:%d: needs data value \"namespace\": pass --value namespace=...\n", rules, line)},
		{secret, "rebasegen: " + secret + " (rebase-rules.yml) line 2: needs data value \"ns\": pass --value ns=...\n"},
	} {
		for _, args := range [][]string{append([]string{"check", "-q", "-r", tc.file}, fix...), {"lint", "-r", tc.file}} {
			r := rebasegen(t, args...)
			if r.code != exitError || r.stdout != "" || r.stderr != tc.want {
				t.Errorf("%s -r %s: exit %d, stdout %q\nstderr:\n%s\nwant:\n%s", args[0], tc.file, r.code, r.stdout, r.stderr, tc.want)
			}
		}
	}
}
