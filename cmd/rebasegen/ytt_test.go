package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/internal/ytttest"
)

func parse(t *testing.T, what, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", what, err, doc)
	}
	return m
}

// TestYTTRendersToConfig: the ytt format rendered by ytt (with the data value ns set to the
// scenario's namespace), and the file inside the secret format (which kapp-controller adds to the
// package's ytt step), are the same kapp Config as the config format (the Secret's naming the
// install's resources: the one it holds).
// --force: this test is about rendering; TestGolden checks that verification passes.
func TestYTTRendersToConfig(t *testing.T) {
	in := scenario(t, "package-app")
	ns := in[len(in)-1]
	gen := func(format ...string) string {
		r := rebasegen(t, append(append([]string{"generate", "--force", "--output"}, format...), in...)...)
		if r.stdout == "" {
			t.Fatalf("generate --output %s: exit code %d, no output; stderr:\n%s", format[0], r.code, r.stderr)
		}
		return r.stdout
	}
	want := parse(t, "config format", gen("config"))
	var secret struct {
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal([]byte(gen("secret", "--package-install", "shop")), &secret); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, tpl string }{
		{"ytt format", gen("ytt", "--namespace-value", "ns")},
		{"secret format", secret.StringData["rebase-rules.yml"]},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := ytttest.Render(c.tpl, ns, false)
			if err != nil {
				t.Errorf("ytt rejects the output with its default options: %v", err)
				if out, err = ytttest.Render(c.tpl, ns, true); err != nil {
					t.Fatalf("ytt --ignore-unknown-comments: %v", err)
				}
			}
			want := want
			if c.name == "secret format" {
				// the Secret's rules name the install's resources: ytt renders the Config it holds
				want = parse(t, "the Secret's Config", c.tpl)
			}
			if got := parse(t, "ytt output", out); !reflect.DeepEqual(got, want) {
				g, _ := yaml.Marshal(got)
				w, _ := yaml.Marshal(want)
				diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(string(w)),
					B: difflib.SplitLines(string(g)), FromFile: "config format", ToFile: "rendered by ytt", Context: 3})
				t.Errorf("ytt renders other rules than the config format:\n%s", diff)
			}
		})
	}
}

// TestPackageFlags: --value-yaml types a value as ytt --data-value-yaml does (a string "3"
// fails the package's integer schema), --namespace-value keys are checked against the package's
// data values when the rules are generated, and lint and check read a package like the others.
func TestPackageFlags(t *testing.T) {
	pkg := filepath.Join("..", "..", "fixtures", "packages", "hpa-web")
	in := []string{"--package", filepath.Join(pkg, "config"), "--values", filepath.Join(pkg, "values.yml"),
		"-l", filepath.Join("..", "..", "fixtures", "hpa-replicas", "live.yaml"), "-n", "hpa-replicas"}
	if r := rebasegen(t, append([]string{"explain", "--value", "replicas=3"}, in...)...); r.code != exitError || !strings.Contains(r.stderr, "expected: integer") {
		t.Errorf("--value replicas=3: exit %d, want 1 with ytt's type error; stderr:\n%s", r.code, r.stderr)
	}
	if r := rebasegen(t, append([]string{"explain", "--value-yaml", "replicas=3"}, in...)...); r.code != 0 || !strings.Contains(r.stdout, "spec.replicas") {
		t.Errorf("--value-yaml replicas=3: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, key := range []string{"namespace", "hpa-replicas=autoscaling.namespace"} {
		r := rebasegen(t, append([]string{"generate", "-o", "ytt", "--namespace-value", key}, in...)...)
		if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, "--namespace-value "+key+": the package's data values have no") {
			t.Errorf("--namespace-value %s: exit %d, stdout %q, stderr:\n%s", key, r.code, r.stdout, r.stderr)
		}
	}
	// the rules name no namespace (the template sets none: they follow the install namespace)
	if r := rebasegen(t, append([]string{"generate", "-o", "ytt", "--namespace-value", "name"}, in...)...); r.code != 0 || !strings.Contains(r.stdout, "rebaseRules:") || strings.Contains(r.stdout, "namespace:") {
		t.Errorf("--namespace-value name (in the schema): exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// lint --package: the matcher of a rule for a Deployment the package does not render is stale.
	rules := filepath.Join("..", "..", "fixtures", "lint", "stale-apiversion", "rules.yml")
	if r := rebasegen(t, "lint", "--rules", rules, "--package", filepath.Join(pkg, "config"), "--values", filepath.Join(pkg, "values.yml")); !strings.Contains(r.stdout, "matches none") {
		t.Errorf("lint --package: exit %d, no unmatched-matcher warning; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// check --rules DIR renders a package directory: its templates are not read as plain YAML.
	if r := rebasegen(t, append([]string{"check", "--rules", filepath.Join(pkg, "config")}, in...)...); r.code != exitPending || !strings.Contains(r.stdout, "residual ghost diff") {
		t.Errorf("check --rules PACKAGE_DIR: exit %d, want 3 with residual ghost diffs; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestPackageFlagsInHelp: the commands the README says take a package (explain, generate, check,
// lint) show --package and --value-yaml in their help; capture, which reads a cluster, does not.
func TestPackageFlagsInHelp(t *testing.T) {
	for _, cmd := range []string{"explain", "generate", "check", "lint", "capture"} {
		r := rebasegen(t, cmd, "--help")
		has := strings.Contains(r.stdout, "--package value") && strings.Contains(r.stdout, "--value-yaml value")
		if has != (cmd != "capture") {
			t.Errorf("%s --help shows --package and --value-yaml: %v; stdout:\n%s", cmd, has, r.stdout)
		}
	}
}

// --output ytt --namespace-value KEY, with KEY among the package's data values, makes the rules
// that name the namespace the package was analysed in follow the data value: the warning telling
// the user to pass it is not printed once it took effect (newcomer11 N11-2: it was, after the
// rules read namespace: #@ data.values.KEY), and the error for a package without the data value
// does not say the objects it renders without a namespace need none, which the warning printed
// without the flag contradicts. The package: fixtures/services rendered without its namespace,
// whose rules name Services web and web-nodeport (a rule for them by kind would match the third).
func TestNamespaceValueSilencesThePinnedWarning(t *testing.T) {
	manifests, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "services", "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := func(schema string) string {
		dir := t.TempDir()
		files := map[string]string{"app.yml": regexp.MustCompile(`(?m)^  namespace: services\n`).ReplaceAllString(string(manifests), "")}
		if schema != "" {
			files["schema.yml"] = schema
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	withValue := pkg("#@data/values-schema\n---\nnamespace: services\n")
	gen := func(dir string, flags ...string) result {
		return rebasegen(t, append([]string{"generate", "--package", dir, "-l", filepath.Join("..", "..", "fixtures", "services", "live.yaml"), "-n", "services", "-o", "ytt"}, flags...)...)
	}
	const pinned = "the package renders it without a namespace, but the rules name namespace services"
	if r := gen(withValue); r.code != 0 || !strings.Contains(r.stderr, pinned) || !strings.Contains(r.stdout, "namespace: services") {
		t.Fatalf("no test: without --namespace-value, exit %d, no warning that the rules name services; stderr:\n%s", r.code, r.stderr)
	}
	r := gen(withValue, "--namespace-value", "namespace")
	if r.code != 0 || !strings.Contains(r.stdout, "namespace: #@ data.values.namespace") || strings.Contains(r.stdout, "namespace: services") {
		t.Fatalf("--namespace-value namespace did not take effect: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, pinned) {
		t.Errorf("--namespace-value namespace took effect, yet the warning to pass it is printed:\n%s", r.stderr)
	}
	r = gen(pkg(""), "--namespace-value", "namespace")
	if r.code != exitError || !strings.Contains(r.stderr, "--namespace-value namespace: the package's data values have no namespace") {
		t.Fatalf("a package without the data value: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "need none") || !strings.Contains(r.stderr, "generate without --namespace-value warns naming them") {
		t.Errorf("the error says objects rendered without a namespace need no data value, which the warning contradicts: %s", r.stderr)
	}
}
