package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression (probe4 finding 10): an error naming a rules file whose name holds a line break
// (here kapp failing on the file's rule) printed the name raw: the one-line error became three
// lines, two of them starting as the file name chose (a forged workflow command, a forged summary).
// The name is escaped as findings escape it.
func TestErrorNamingAFileKeepsItOnOneLine(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	rules := filepath.Join(t.TempDir(), "q\n##[error]injected by file name\n::warning::x.yml")
	if err := os.WriteFile(rules, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing]\n  paths:\n  - [spec, {index: -1}, x]\n  resourceMatchers:\n  - allMatcher: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, append([]string{"check", "--rules", rules, "--output", "github"}, fix...)...)
	if r.code != exitError || !strings.Contains(r.stderr, `q\n#\x23[error]injected by file name\n::warning::x.yml: document 1`) {
		t.Errorf("want exit 1 and the file named on one line, escaped; got %d:\n%s", r.code, r.stderr)
	}
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, ":") {
			t.Errorf("a line of stderr starts as the file name chose: %q", l)
		}
	}
}

// forged is what a hostile input puts after a line break: a summary line that reads as check's.
const forged = "check: kapp keeps 2/2 paired resources; 0 residual ghost diffs FORGED"

// Regression (probe8 P8-3): a line break in a managedFields manager's name or in a rule's path
// key reached check's and generate's text output raw (Finding.Evidence was escaped line by line),
// so the input wrote a line of its own: a passing summary in a CI log; so did a file name given on
// the command line in an error. Each finding is one line, the input's line break shown as \n.
// Every text output is fed the same forged line through a manager name, a rule path key, a file
// name and an object name.
func TestInputLineBreaksForgeNoLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	escaped := `\n` + forged
	drift := scenario(t, "human-drift")
	hpa := scenario(t, "hpa-replicas")
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "-q", "--output-file", rules}, drift...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	hpaRules := filepath.Join(dir, "hpa.yml")
	if r := rebasegen(t, append([]string{"generate", "-q", "--output-file", hpaRules}, hpa...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	// the manager name: the drift's evidence names who changed the field
	live := read(drift[3])
	if !strings.Contains(live, "manager: kubectl-edit") {
		t.Fatalf("%s: no manager kubectl-edit", drift[3])
	}
	managerLive := write("manager-live.yaml", strings.Replace(live, "manager: kubectl-edit", `manager: "ops\n`+forged+`"`, 1))
	// the rule path key: the hidden change's evidence names the rule
	bumped := write("bumped.yaml", strings.Replace(read(hpa[1]), "nginx:1.25", "nginx:1.27", 1))
	keyRules := write("key.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, image]
  - [metadata, labels, "x\n`+forged+`"]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	// the object name: a desired object kapp would create
	named := write("named.yaml", read(hpa[1])+"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"x\\n"+forged+"\"\n  namespace: hpa-replicas\n")
	for _, c := range []struct {
		name    string
		args    []string
		escaped bool // the input reaches the output (escaped), not only refused
	}{
		{"check, manager", append([]string{"check", "--rules", rules, "-d", drift[1], "-l", managerLive}, drift[4:]...), true},
		{"generate, manager", append([]string{"generate", "-d", drift[1], "-l", managerLive}, drift[4:]...), true},
		{"explain, manager", append([]string{"explain", "--wide", "-d", drift[1], "-l", managerLive}, drift[4:]...), true},
		{"check, rule path key", append([]string{"check", "--rules", hpaRules, "--rules", keyRules, "-d", bumped}, hpa[2:]...), true},
		{"lint, rule path key", append([]string{"lint", "--rules", keyRules}, hpa...), false},
		{"check, object name", append([]string{"check", "--rules", hpaRules, "-d", named}, hpa[2:]...), false},
		{"generate, object name", append([]string{"generate", "-d", named}, hpa[2:]...), false},
		{"check, file name", append([]string{"check", "--rules", "nofile\n" + forged}, hpa...), true},
	} {
		r := rebasegen(t, c.args...)
		out := r.stdout + r.stderr
		if c.escaped && !strings.Contains(out, escaped) {
			t.Errorf("%s: exit %d; the input's line break is not shown as \\n:\n%s", c.name, r.code, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, forged) {
				t.Errorf("%s: exit %d; a line starts as the input chose:\n%s", c.name, r.code, out)
				break
			}
		}
	}
}
