package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageErrors: a mistyped flag or command, a flag without its value and a missing required
// flag are one or two lines on stderr, naming the flag as typed (--desired, not -desired) with
// the closest one, nothing on stdout (where `> rules.yml` would keep the help), exit status 1.
// (The regression: ~70 lines of help on stdout, the flag single-dashed, no suggestion.)
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--desire", "d.yaml", "-l", "l.yaml"}, "rebasegen: generate: unknown flag --desire: did you mean --desired?"},
		{[]string{"explain", "--des", "d.yaml"}, "rebasegen: explain: unknown flag --des: did you mean --desired?"},
		{[]string{"explain", "--rules", "r.yml"}, "rebasegen: explain: unknown flag --rules: did you mean --ruleset? (--rules is a flag of check, lint)"},
		// newcomer5 F7: "did you mean --output? (a flag of generate)" read as if explain had no --output
		{[]string{"explain", "-l", "l.yaml", "--output-file", "x.txt"}, "rebasegen: explain: unknown flag --output-file: did you mean --output? (--output-file is a flag of generate)\n"},
		{[]string{"explain", "-x"}, "rebasegen: explain: unknown flag -x\n"},
		{[]string{"generate", "--package", "p", "--valuse", "v.yml", "-l", "l.yaml"}, "rebasegen: generate: unknown flag --valuse: did you mean --values?"},
		{[]string{"generate", "-d", "d.yaml", "--live-file", "l.yaml"}, "rebasegen: generate: unknown flag --live-file: did you mean --live?"},
		{[]string{"explain", "--desired"}, "rebasegen: explain: --desired needs a value"},
		{[]string{"check", "-l", "l.yaml", "--rules", "r.yml", "--fail-on-drift=maybe"}, `rebasegen: check: invalid value "maybe" for --fail-on-drift`},
		{[]string{"explain"}, "rebasegen: explain: missing --live (-l): live objects"},
		{[]string{"generate", "-d", "d.yaml"}, "rebasegen: generate: missing --live (-l)"},
		{[]string{"check", "-l", "l.yaml"}, "rebasegen: check: missing --rules"},
		{[]string{"lint"}, "rebasegen: lint: missing --rules (-r)"},
		{[]string{"capture", "--app", "a"}, "rebasegen: capture: missing --output-directory"},
		// newcomer12 N12-5: -o, the output of every other command (and kubectl's), had no suggestion
		{[]string{"capture", "--app", "a", "-o", "dir"}, "rebasegen: capture: unknown flag -o: did you mean --output-directory? (-o is a flag of explain, generate, check, lint)\n"},
		{[]string{"--bogus"}, "rebasegen: unknown flag --bogus\nRun 'rebasegen --help' for usage."},
		{[]string{"genrate"}, "rebasegen: unknown command \"genrate\": did you mean generate?\nRun 'rebasegen --help' for the commands."},
		{[]string{"help", "explian"}, "rebasegen: unknown command \"explian\": did you mean explain?"},
		{[]string{"frobnicate"}, "rebasegen: unknown command \"frobnicate\"\n"},
	} {
		r := rebasegen(t, tc.args...)
		lines := strings.Count(r.stderr, "\n")
		if r.code != exitError || r.stdout != "" || !strings.HasPrefix(r.stderr, tc.want) || lines < 1 || lines > 2 {
			t.Errorf("rebasegen %s: exit %d, stdout %d bytes, stderr:\n%s\nwant exit 1, nothing on stdout, stderr starting %q in one or two lines",
				strings.Join(tc.args, " "), r.code, len(r.stdout), r.stderr, tc.want)
		}
		if cmd := tc.args[0]; !strings.HasPrefix(cmd, "-") && cmd != "help" && !strings.Contains(tc.want, "unknown command") &&
			!strings.HasSuffix(r.stderr, "Run 'rebasegen "+cmd+" --help' for usage.\n") {
			t.Errorf("rebasegen %s: stderr does not say where the help is:\n%s", strings.Join(tc.args, " "), r.stderr)
		}
	}
}

// TestDidYouMean: the suggestion is the closest candidate, and none when nothing is close.
func TestDidYouMean(t *testing.T) {
	flags := []string{"--desired", "-d", "--live", "-l", "--namespace", "-n", "--package", "--package-cr", "--value", "--values", "--rules", "--ruleset"}
	for given, want := range map[string]string{
		"--desire": "--desired", "--desird": "--desired", "--lve": "--live", "--namespce": "--namespace",
		"--pack": "--package", "--packge-cr": "--package-cr", "-x": "", "--zzzzzz": "", "--l": "",
		// newcomer24 finding 7: a swap of two letters is one edit (--value is one deletion away
		// too: the one as long as what was given wins), and a flag's name with more around it
		"--valuse": "--values", "--vaule": "--value", "--live-file": "--live", "--desired-file": "--desired",
		"--values-file": "--values", "--package-cr-file": "--package-cr", "--rule": "--rules",
	} {
		got := didYouMean(flags, given)
		if want != "" {
			want = ": did you mean " + want + "?"
		}
		if got != want {
			t.Errorf("didYouMean(%q) = %q, want %q", given, got, want)
		}
	}
}

// capture into a package's config directory mixed the cluster's objects into what ytt renders
// (newcomer2 finding 7): refused before the cluster is asked; a directory of an earlier capture
// is written again.
func TestCaptureRefusesADirectoryOfOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"app.yml", "rebase-rules.yml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("a: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	noConfig := filepath.Join(t.TempDir(), "kubeconfig") // empty: no cluster to ask
	if err := os.WriteFile(noConfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, "capture", "--app", "blog", "-n", "blog", "--output-directory", dir, "--kubeconfig", noConfig)
	if want := "holds files capture does not write (app.yml, rebase-rules.yml)"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("want exit 1 and %q, got %d:\n%s", want, r.code, r.stderr)
	}
	earlier := t.TempDir()
	for f, data := range map[string]string{"live.yaml": capturedFile("---\n{}\n"), "desired.yaml": capturedFile("---\n{}\n"), "server-version.json": versionJSON("v1.37.2")} {
		if err := os.WriteFile(filepath.Join(earlier, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = rebasegen(t, "capture", "--app", "blog", "-n", "blog", "--output-directory", earlier, "--kubeconfig", noConfig)
	if r.code != 1 || strings.Contains(r.stderr, "holds files") || !strings.Contains(r.stderr, "kubeconfig") {
		t.Errorf("an earlier capture's directory: want the kubeconfig error, got %d:\n%s", r.code, r.stderr)
	}
}

// A file given to the wrong flag is named with the flag it belongs to (newcomer2 finding 8):
// a kapp Config as --ruleset or --live, a --value that is not KEY=VALUE (ytt's own error named
// no flag), with --values suggested when it names a file.
func TestWrongFileForTheFlag(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "rebase-rules.yml")
	if err := os.WriteFile(config, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, l := filepath.Join("..", "..", "fixtures", "hpa-replicas", "desired.yaml"), filepath.Join("..", "..", "fixtures", "hpa-replicas", "live.yaml")
	// a capture directory (newcomer2 finding 8): what rebasegen capture writes
	capture := filepath.Join(dir, "cap")
	// a package whose names come from a data value, with a CRD file of its own among its templates
	pkg := filepath.Join(dir, "config")
	for name, text := range map[string]string{
		filepath.Join(capture, "desired.yaml"):        "",
		filepath.Join(capture, "live.yaml"):           "",
		filepath.Join(capture, "server-version.json"): `{"gitVersion": "v1.37.2"}`,
		filepath.Join(pkg, "schema.yml"):              "#@data/values-schema\n---\nname: \"\"\n",
		filepath.Join(dir, "values.yml"):              "name: web\n",
		filepath.Join(pkg, "app.yml"):                 "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: #@ data.values.name\n  namespace: hpa-replicas\n",
		filepath.Join(pkg, "crd.yml"): "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n" +
			"metadata:\n  name: caches.example.com\n---\napiVersion: example.com/v1\nkind: Cache\nmetadata:\n  name: #@ data.values.name + \"-cache\"\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "-d", d, "-l", l, "--ruleset", config}, "--ruleset " + config + ": a kapp Config: rules kapp reads go to --rules"},
		{[]string{"explain", "-d", d, "-l", config}, "--live " + config + ": document 1 (line 1): a kapp Config, not an object read from the cluster: rules go to --rules"},
		{[]string{"explain", "--package", dir, "--value", "image", "-l", l}, "--value image: want KEY=VALUE"},
		// a values file given to --value, one letter short of --values (newcomer16 N16-5)
		{[]string{"explain", "--package", pkg, "--value", filepath.Join(dir, "values.yml"), "-l", l}, "--value " + filepath.Join(dir, "values.yml") +
			": want KEY=VALUE (a data value, as ytt -v takes it)\nhint: did you mean --values " + filepath.Join(dir, "values.yml") + "? (it names a file)"},
		{[]string{"explain", "-d", capture, "-l", capture}, "--desired " + capture + ": a directory rebasegen capture wrote (it holds server-version.json): it goes to --live; --desired takes the manifests (the package's: --package; capture's recovery of what kapp last applied: --desired " + filepath.Join(capture, "desired.yaml") + ")"},
		{[]string{"explain", "-d", d, "-l", l, "--crd", filepath.Join(pkg, "crd.yml")}, "--crd " + filepath.Join(pkg, "crd.yml") + " holds ytt templates (#@ annotations): --crd takes CustomResourceDefinitions as plain YAML; the CRDs a package renders are read from --package"},
		{[]string{"explain", "--package", pkg, "-l", l}, "--package " + pkg + " was rendered with no --values or --value: every data value is its default; is a --values file missing?"},
	} {
		r := rebasegen(t, tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: want exit 1 and %q, got %d:\n%s", tc.args, tc.want, r.code, r.stderr)
		}
	}
}
