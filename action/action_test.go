// Package action holds the GitHub Action's script (../action.yml runs check.sh); its test runs the
// script as the Action does, on a fixture package.
package action

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

type actionYAML struct {
	Inputs map[string]struct {
		Required bool   `json:"required"`
		Default  string `json:"default"`
	} `json:"inputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []struct {
			Uses string            `json:"uses"`
			With map[string]any    `json:"with"`
			Run  string            `json:"run"`
			Env  map[string]string `json:"env"`
		} `json:"steps"`
	} `json:"runs"`
}

// readAction is the Action's action.yml.
func readAction(t *testing.T) actionYAML {
	t.Helper()
	data, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// Every input of action.yml reaches check.sh as INPUT_<NAME>, and the script reads each one.
func TestActionInputsReachTheScript(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q, want composite", a.Runs.Using)
	}
	script, err := os.ReadFile("check.sh")
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]string
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "action/check.sh") {
			env = s.Env
		}
	}
	if env == nil {
		t.Fatal("no step of action.yml runs action/check.sh")
	}
	for name := range a.Inputs {
		v := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if env[v] != "${{ inputs."+name+" }}" {
			t.Errorf("input %s: step env %s = %q, want ${{ inputs.%s }}", name, v, env[v], name)
		}
		if !strings.Contains(string(script), v) {
			t.Errorf("input %s: check.sh never reads %s", name, v)
		}
	}
}

// The arguments the script passes: lists one flag per line, --namespace only when given.
func TestScriptArguments(t *testing.T) {
	dir := t.TempDir()
	echo := filepath.Join(dir, "echo-args")
	if err := os.WriteFile(echo, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		want []string
	}{
		{[]string{"INPUT_PACKAGE=pkg", "INPUT_LIVE=live.yaml", "INPUT_RULES=r.yml"},
			[]string{"check", "--output", "github", "--package", "pkg", "--live", "live.yaml", "--rules", "r.yml"}},
		// plain manifests, and the ruleset and CRDs the rules were generated with, one per line
		{[]string{"INPUT_DESIRED=a.yaml\nb.yaml", "INPUT_LIVE=live.yaml", "INPUT_RULES=r.yml", "INPUT_RULESET=rs.yaml", "INPUT_CRD=crds/\nx.yaml"},
			[]string{"check", "--output", "github", "--desired", "a.yaml", "--desired", "b.yaml", "--live", "live.yaml", "--rules", "r.yml",
				"--ruleset", "rs.yaml", "--crd", "crds/", "--crd", "x.yaml"}},
		{[]string{"INPUT_PACKAGE=pkg", "INPUT_VALUES=a.yml\n b.yml \n", "INPUT_LIVE=live.yaml", "INPUT_RULES=r.yml\nconfig/",
			"INPUT_NAMESPACE=ns", "INPUT_FAIL_ON_DRIFT=true"},
			[]string{"check", "--output", "github", "--package", "pkg", "--values", "a.yml", "--values", "b.yml", "--live", "live.yaml",
				"--rules", "r.yml", "--rules", "config/", "--namespace", "ns", "--fail-on-drift"}},
		// data values one per line, each one argument whatever it holds; fail-on-adoption
		{[]string{"INPUT_PACKAGE=pkg", "INPUT_VALUE=name=shop\ngreeting=hello world; $(id) `id`\n", "INPUT_VALUE_YAML=replicas=3",
			"INPUT_LIVE=live.yaml", "INPUT_RULES=r.yml", "INPUT_FAIL_ON_ADOPTION=true"},
			[]string{"check", "--output", "github", "--package", "pkg", "--value", "name=shop", "--value", "greeting=hello world; $(id) `id`",
				"--value-yaml", "replicas=3", "--live", "live.yaml", "--rules", "r.yml", "--fail-on-adoption"}},
		{[]string{"INPUT_PACKAGE=pkg", "INPUT_LIVE=live.yaml", "INPUT_RULES=r.yml", "INPUT_FAIL_ON_CREATE=true", "INPUT_FAIL_ON_DELETE=true"},
			[]string{"check", "--output", "github", "--package", "pkg", "--live", "live.yaml", "--rules", "r.yml", "--fail-on-create", "--fail-on-delete"}},
		// newcomer12 N12-3: a consumer's Package CR alone (no package directory, no manifests), a
		// package of two paths (like ytt -f, one per line), the Argo CD target, the server version
		// and --no-operational the rules were generated with
		{[]string{"INPUT_PACKAGE_CR=package.yml", "INPUT_LIVE=live.yaml", "INPUT_RULES=secret.yml"},
			[]string{"check", "--output", "github", "--live", "live.yaml", "--rules", "secret.yml", "--package-cr", "package.yml"}},
		{[]string{"INPUT_PACKAGE=config\noverlays\n", "INPUT_LIVE=live.yaml", "INPUT_RULES=r.yml", "INPUT_TARGET=argocd",
			"INPUT_SERVER_VERSION=v1.35.0", "INPUT_NO_OPERATIONAL=true"},
			[]string{"check", "--output", "github", "--package", "config", "--package", "overlays", "--live", "live.yaml", "--rules", "r.yml",
				"--target", "argocd", "--server-version", "v1.35.0", "--no-operational"}},
	} {
		cmd := exec.Command("bash", "check.sh")
		cmd.Env = append(os.Environ(), append(tc.env, "REBASEGEN="+echo)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", tc.env, err)
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, tc.want) {
			t.Errorf("%v:\n got %q\nwant %q", tc.env, got, tc.want)
		}
	}
	for _, input := range []string{"fail-on-drift", "fail-on-adoption", "fail-on-create", "fail-on-delete", "no-operational"} {
		cmd := exec.Command("bash", "check.sh")
		cmd.Env = append(os.Environ(), "INPUT_PACKAGE=p", "INPUT_LIVE=l", "INPUT_RULES=r", "INPUT_"+strings.ToUpper(strings.ReplaceAll(input, "-", "_"))+"=yes", "REBASEGEN="+echo)
		if out, err := cmd.Output(); exitCode(t, err) != 1 || !strings.Contains(string(out), "::error::"+input+": want true or false") {
			t.Errorf("%s=yes: exit %d, %q; want 1 and an error annotation", input, exitCode(t, err), out)
		}
	}
}

// The Action on the hpa-web fixture package against the live objects captured for it: clean with
// rules rebasegen generated, failing with annotations on the rules file without them.
func TestActionOnFixturePackage(t *testing.T) {
	dir := t.TempDir()
	bin := build(t)
	pkg, live, ns := "../fixtures/packages/hpa-web/config", "../fixtures/hpa-replicas/live.yaml", "hpa-replicas"
	values := "../fixtures/packages/hpa-web/values.yml"
	rules := filepath.Join(dir, "rebase-rules.yml")
	if out, err := exec.Command(bin, "generate", "-q", "--package", pkg, "--values", values, "-l", live, "-n", ns, "--output-file", rules).CombinedOutput(); err != nil {
		t.Fatalf("rebasegen generate: %v\n%s", err, out)
	}
	none := filepath.Join(dir, "none.yml")
	if err := os.WriteFile(none, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	action := func(rules string, env ...string) (string, int) {
		cmd := exec.Command("bash", "check.sh")
		cmd.Env = append(os.Environ(), append([]string{"REBASEGEN=" + bin, "INPUT_PACKAGE=" + pkg, "INPUT_VALUES=" + values,
			"INPUT_LIVE=" + live, "INPUT_RULES=" + rules, "INPUT_NAMESPACE=" + ns, "INPUT_FAIL_ON_DRIFT=false"}, env...)...)
		out, err := cmd.CombinedOutput()
		return string(out), exitCode(t, err)
	}
	// a data value reaches the package: another name renders objects the cluster does not hold,
	// pending creates, a change made in Git: warnings, errors with fail-on-create (newcomer15 N15-1)
	for _, tc := range []struct {
		failOnCreate string
		code         int
		level        string
	}{{"false", 0, "warning"}, {"true", 3, "error"}} {
		out, code := action(rules, "INPUT_VALUE=name=shop", "INPUT_FAIL_ON_CREATE="+tc.failOnCreate)
		if code != tc.code || !regexp.MustCompile(`(?m)^::`+tc.level+`( [^:]*)?::pending create, not compared: apps/Deployment hpa-replicas/shop`).MatchString(out) {
			t.Errorf("value name=shop, fail-on-create %s: exit %d, want %d and a pending create (%s)\n%s", tc.failOnCreate, code, tc.code, tc.level, out)
		}
	}
	if out, code := action(rules); code != 0 {
		t.Errorf("with generated rules: exit %d, want 0\n%s", code, out)
	}
	out, code := action(none)
	if code != 3 {
		t.Errorf("without rules: exit %d, want 3\n%s", code, out)
	}
	annotation := regexp.MustCompile(`(?m)^::error file=` + regexp.QuoteMeta(none) + `,line=\d+::residual ghost diff: apps/Deployment hpa-replicas/web spec\.replicas`)
	if !annotation.MatchString(out) {
		t.Errorf("without rules: no error annotation for spec.replicas on %s\n%s", none, out)
	}
}

// TestActionOnPlainManifestsWithRuleset (issue 24, newcomer9 N9-5): the Action takes plain
// manifests (desired) as well as a package, and the ruleset and CRDs the rules were generated
// with: rules generated with -d and --ruleset on atomic-list-job (a list its post-deploy job
// rewrites) are clean there, as check says with the same inputs. The Action took only a package:
// the same manifests given as one made the rules stale, and without the ruleset the rule on the
// list was a hidden change made in Git.
func TestActionOnPlainManifestsWithRuleset(t *testing.T) {
	dir := t.TempDir()
	bin := build(t)
	desired, live, ruleset, ns := "../fixtures/atomic-list-job/desired.yaml", "../fixtures/atomic-list-job/live.yaml", "../fixtures/atomic-list-job/ruleset.yaml", "atomic-list-job"
	rules := filepath.Join(dir, "rebase-rules.yml")
	if out, err := exec.Command(bin, "generate", "-q", "-d", desired, "-l", live, "-n", ns, "--ruleset", ruleset, "--output-file", rules).CombinedOutput(); err != nil {
		t.Fatalf("rebasegen generate: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", "check.sh")
	cmd.Env = append(os.Environ(), "REBASEGEN="+bin, "INPUT_DESIRED="+desired, "INPUT_LIVE="+live, "INPUT_RULES="+rules,
		"INPUT_RULESET="+ruleset, "INPUT_NAMESPACE="+ns)
	out, err := cmd.CombinedOutput()
	if code := exitCode(t, err); code != 0 || strings.Contains(string(out), "::error") {
		t.Errorf("desired and ruleset: exit %d, want 0 and no error annotation\n%s", code, out)
	}
	// neither a package nor manifests: the script says what to give
	cmd = exec.Command("bash", "check.sh")
	cmd.Env = append(os.Environ(), "REBASEGEN="+bin, "INPUT_LIVE="+live, "INPUT_RULES="+rules)
	if out, err := cmd.CombinedOutput(); exitCode(t, err) != 1 || !strings.HasPrefix(string(out), "::error::give the package input") {
		t.Errorf("no package nor desired: exit %d, want 1 and an error annotation\n%s", exitCode(t, err), out)
	}
}

var built struct {
	once sync.Once
	bin  string
	err  error
}

// build builds rebasegen once for the tests that run the Action on it.
func build(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "rebasegen-action")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "rebasegen")
		if out, err := exec.Command("go", "build", "-o", built.bin, "../cmd/rebasegen").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// TestMain removes the binary build made.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.bin != "" {
		os.RemoveAll(filepath.Dir(built.bin))
	}
	os.Exit(code)
}

func exitCode(t *testing.T, err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestScriptEscapesInputs (issue 23): an input holding a line break and a workflow command, shown
// back in the script's error annotation, is one escaped line, not a second command.
func TestScriptEscapesInputs(t *testing.T) {
	cmd := exec.Command("bash", "check.sh")
	cmd.Env = append(os.Environ(), "INPUT_PACKAGE=p", "INPUT_LIVE=l", "INPUT_RULES=r", "REBASEGEN=false",
		"INPUT_FAIL_ON_DRIFT=yes\n::error file=README.md::INJECTED\r 100% \x1b]0;x\x07")
	out, err := cmd.Output()
	if exitCode(t, err) != 1 {
		t.Fatalf("exit %d, want 1", exitCode(t, err))
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "::error::fail-on-drift: want true or false, got ") || strings.ContainsAny(lines[0], "\r\x1b\x07") {
		t.Errorf("want one escaped annotation, got %q", out)
	}
	if !strings.Contains(lines[0], "100%25") {
		t.Errorf("%% not escaped as %%25: %q", lines[0])
	}
}

// TestActionYAMLQuotesAndCaches (issue 23, issue 24): no step's script holds a ${{ }} expression
// (expanded before the shell runs, a value would be code: they go through env), and setup-go
// caches the module and build caches keyed by go.sum (else every run compiles Kubernetes, kapp
// and ytt from scratch).
func TestActionYAMLQuotesAndCaches(t *testing.T) {
	a := readAction(t)
	setupGo := false
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("a step's script holds an expression:\n%s", s.Run)
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") {
			setupGo = true
			if c, ok := s.With["cache"]; ok && c != true && c != "true" {
				t.Errorf("setup-go: cache %v, want true", c)
			}
			if p, _ := s.With["cache-dependency-path"].(string); !strings.HasSuffix(p, "/go.sum") {
				t.Errorf("setup-go: cache-dependency-path %q, want rebasegen's go.sum", p)
			}
		}
	}
	if !setupGo {
		t.Error("no setup-go step")
	}
}

// The Action builds rebasegen with the Go its go.mod requires (newcomer7 N7-14): it asked
// setup-go for a version written in action.yml, older than go.mod's, and built without
// GOTOOLCHAIN=auto, so a job environment saying GOTOOLCHAIN=local refused the build.
func TestActionBuildsWithTheGoOfGoMod(t *testing.T) {
	a := readAction(t)
	if _, err := os.Stat("../go.mod"); err != nil {
		t.Fatal(err)
	}
	var setup, build bool
	for _, s := range a.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/setup-go@") {
			setup = true
			if s.With["go-version-file"] != "${{ github.action_path }}/go.mod" || s.With["go-version"] != nil {
				t.Errorf("setup-go step: with %v, want go-version-file: ${{ github.action_path }}/go.mod and no go-version", s.With)
			}
		}
		if strings.Contains(s.Run, "go build") {
			build = true
			if s.Env["GOTOOLCHAIN"] != "auto" {
				t.Errorf("build step: GOTOOLCHAIN %q, want auto", s.Env["GOTOOLCHAIN"])
			}
		}
	}
	if !setup || !build {
		t.Errorf("action.yml: setup-go step %v, go build step %v", setup, build)
	}
}

// GitHub does not enforce a composite action's required inputs: a workflow without live or rules
// got bash's "INPUT_LIVE: the live input is required" naming the script's line; and paths on one
// line, as a workflow list is often written, were one path, "no such file" with no word of one
// path per line. Both are error annotations saying what to give (newcomer18 N18-3, issue 24).
func TestScriptRequiredAndOneLineLists(t *testing.T) {
	dir := t.TempDir()
	echo := filepath.Join(dir, "echo-args")
	if err := os.WriteFile(echo, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"values.yml", "values-prod.yml", "my values.yml"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs("check.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		code int
		want string
	}{
		{[]string{"INPUT_PACKAGE=config", "INPUT_RULES=r.yml"}, 1, "::error::give the live input: the live objects captured from a test cluster (rebasegen capture's directory, or its live.yaml)\n"},
		{[]string{"INPUT_PACKAGE=config", "INPUT_LIVE=ci/live", "INPUT_RULES= \n"}, 1, "::error::give the rules input: the rules rebasegen generate wrote (its --output-file)\n"},
		{[]string{"INPUT_PACKAGE=config", "INPUT_LIVE=ci/live", "INPUT_RULES=r.yml", "INPUT_VALUES=values.yml values-prod.yml"}, 1,
			"::error::values: values.yml\\ values-prod.yml is no path, its words are: give one path per line\n"},
		// a path that holds a space, and data values with spaces, are as given
		{[]string{"INPUT_PACKAGE=config", "INPUT_LIVE=ci/live", "INPUT_RULES=r.yml", "INPUT_VALUES=my values.yml", "INPUT_VALUE=greeting=hello world"}, 0,
			"check\n--output\ngithub\n--package\nconfig\n--values\nmy values.yml\n--value\ngreeting=hello world\n--live\nci/live\n--rules\nr.yml\n"},
	} {
		cmd := exec.Command("bash", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append(tc.env, "REBASEGEN="+echo)...)
		out, err := cmd.CombinedOutput()
		if exitCode(t, err) != tc.code || string(out) != tc.want {
			t.Errorf("%q: exit %d, output:\n%s\nwant exit %d and:\n%s", tc.env, exitCode(t, err), out, tc.code, tc.want)
		}
	}
}
