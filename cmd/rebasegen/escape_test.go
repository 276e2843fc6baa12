package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
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
	write := func(name, s string) string { return writeIn(t, dir, name, s) }
	read := func(p string) string { return readFile(t, p) }
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

// TestHostileNamesInErrors (issue 23): an error or warning quoting an input string escapes it
// with escape.Text, whatever path it takes: a line break, an ESC or a bidi control in an object's
// name or namespace, a flag's value, a command-line argument, a kapp rule's type or a ytt rule's
// fail message reached stderr raw in several (the duplicate object, the -n choice, --value,
// --target, the hint for a stray argument, an unknown flag, kapp's rule errors), so the input
// wrote a line of its own: a passing summary in a CI log. Each case feeds the same hostile string
// and wants it shown (FORGED), on no line of its own and with no raw control character.
func TestHostileNamesInErrors(t *testing.T) {
	dir := t.TempDir()
	hostile := "x\n" + forged + "\u202e\x1b[2J"
	quoted := strconv.Quote(hostile) // as YAML reads a double-quoted string
	write := func(name, s string) string { return writeIn(t, dir, name, s) }
	hpa := scenario(t, "hpa-replicas") // -d desired -l live -n ns
	desired, live := readFile(t, hpa[1]), readFile(t, hpa[3])
	noRules := write("none.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n")
	rule := func(name, body string) string {
		return write(name, "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- "+body+"\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n")
	}
	argo := func(name, entry string) string {
		return write(name, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  ignoreDifferences:\n  - kind: Deployment\n    "+entry+"\n")
	}
	cm := "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + quoted + "}\n"
	// an API server listing a kapp app "shop" in a namespace named so: capture's hint names it
	appJSON, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "shop", "namespace": hostile, "labels": map[string]string{"kapp.k14s.io/is-app": ""}}})
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := fakeAPIServer(t, versionJSON("v1.37.2"), func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[`+string(appJSON)+`]}`)
	})
	for _, c := range []struct {
		name string
		args []string
	}{
		{"load: a file name", []string{"explain", "-d", write("bad\n"+strings.ReplaceAll(forged, "/", "-")+".yaml", "a: [\n"), "-l", hpa[3], "-n", hpa[5]}},
		{"pair: a duplicate object's name", []string{"explain", "-d", write("dup.yaml", desired+cm+cm), "-l", hpa[3], "-n", hpa[5]}},
		{"pair: the namespaces -n chooses from", []string{"explain", "-d", hpa[1], "-l", write("ns.yaml", strings.Replace(live, "namespace: hpa-replicas", "namespace: "+quoted, 1))}},
		{"flag: --value", []string{"explain", "--package", dir, "--value", hostile, "-l", hpa[3]}},
		{"flag: --target", append([]string{"check", "--rules", noRules, "--target", hostile}, hpa...)},
		{"flag: --server-version", append([]string{"explain", "--server-version", hostile}, hpa...)},
		{"flag: generate's --output, a path", append([]string{"generate", "--output", "./" + hostile}, hpa...)},
		{"flag: generate's --output with --target argocd", append([]string{"generate", "--target", "argocd", "--output", hostile}, hpa...)},
		{"capture: the namespace of the app meant", []string{"capture", "--kubeconfig", kubeconfig, "--output-directory", filepath.Join(dir, "captured"), "--app", "shop", "-n", "shop"}},
		{"flag: an unknown flag", []string{"check", "--" + hostile}},
		{"flag: a stray argument's hint", append([]string{"check", "--rules", noRules, hostile}, hpa...)},
		{"rules: kapp's error on a rule type", append([]string{"check", "--rules", rule("type.yml", "type: "+quoted+"\n  sources: [existing]\n  paths: [[spec]]")}, hpa...)},
		{"rules: a ytt rule's fail message", append([]string{"check", "--rules", rule("ytt.yml", "ytt:\n    overlayContractV1:\n      overlay.yml: "+
			strconv.Quote("#@ load(\"@ytt:overlay\", \"overlay\")\n#@ fail("+quoted+")\n"))}, hpa...)},
		{"argocd: an ignoreDifferences key", append([]string{"check", "--target", "argocd", "--rules", argo("key.yml", quoted+": [/spec]")}, hpa...)},
		{"argocd: a jq expression", append([]string{"check", "--target", "argocd", "--rules", argo("jq.yml", "jqPathExpressions: ["+strconv.Quote(".spec | "+hostile)+"]")}, hpa...)},
	} {
		r := rebasegen(t, c.args...)
		out := r.stdout + r.stderr
		if r.code == 0 || !strings.Contains(out, "FORGED") {
			t.Errorf("%s: exit %d, want an error naming the input:\n%s", c.name, r.code, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), forged[:20]) {
				t.Errorf("%s: a line starts as the input chose:\n%s", c.name, out)
				break
			}
		}
		if strings.ContainsAny(out, "\x1b\u202e") {
			t.Errorf("%s: a control character of the input reached the output raw:\n%q", c.name, out)
		}
	}
}

// writeIn writes s to the file name in dir and returns its path.
func writeIn(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
