package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/emit"
)

// copyTo copies a fixture file to dir/name (names with spaces: the header must quote them).
func copyTo(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// The header records every flag that changes the output: running the command it records gives
// the same bytes (issue 12 item 9: --package, --values, --value, --package-cr were lost, and
// paths with spaces broke the command).
func TestRegenerateCommandReproducesTheOutput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a dir")
	pkg := filepath.Join("..", "..", "fixtures", "packages", "hpa-web")
	live := copyTo(t, filepath.Join("..", "..", "fixtures", "hpa-replicas", "live.yaml"), dir, "live objects.yaml")
	values := copyTo(t, filepath.Join(pkg, "values.yml"), dir, "my values.yml")
	config := filepath.Join(dir, "pkg config")
	copyTo(t, filepath.Join(pkg, "config", "app.yml"), config, "app.yml")
	copyTo(t, filepath.Join(pkg, "config", "schema.yml"), config, "schema.yml")
	cr := copyTo(t, filepath.Join(pkg, "package.yml"), dir, "package cr.yml")
	crd := filepath.Join(dir, "extra crd.yaml")
	os.WriteFile(crd, []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
`), 0o644)
	ruleset := filepath.Join(dir, "team's ruleset.yaml")
	os.WriteFile(ruleset, []byte("appliers:\n- name: team-deployer\n  source: the team's deploy job\n"), 0o644)
	desired := filepath.Join(dir, "package rules.yml") // a kapp Config among the desired objects
	os.WriteFile(desired, []byte("apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules: []\n"), 0o644)

	common := []string{"--desired", desired, "--live", live, "--crd", crd, "--ruleset", ruleset,
		"--values", values, "--value", "name=web", "--value", "image=nginx:1.25", "--value-yaml", "replicas=1", "--namespace", "hpa-replicas", "--include-unknown", "--no-operational"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"package, ytt format", []string{"--package", config, "--output", "ytt", "--namespace-value", "name"}},
		{"package CR, secret format", []string{"--package-cr", cr, "--output", "secret", "--package-install", "shop"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".yml")
			r := rebasegen(t, append(append([]string{"generate", "--quiet", "--output-file", out}, common...), c.args...)...)
			if r.code != 0 {
				t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
			}
			first, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var recorded string
			for _, l := range strings.Split(string(first), "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimLeft(l, " "), "#! Regenerate: "); ok {
					recorded = rest
				}
			}
			opts, err := emit.ParseCommand(recorded)
			if err != nil {
				t.Fatalf("%v: %q", err, recorded)
			}
			for _, flag := range append(append([]string{"--output-file"}, common...), c.args...) {
				if strings.HasPrefix(flag, "--") && !strings.Contains(recorded, flag+" ") && !strings.HasSuffix(recorded, flag) {
					t.Errorf("%s is not recorded: %s", flag, recorded)
				}
			}
			if err := os.Remove(out); err != nil {
				t.Fatal(err)
			}
			r = rebasegen(t, append([]string{"generate", "--quiet"}, opts.Args()...)...)
			if r.code != 0 {
				t.Fatalf("recorded command: exit %d\n%s", r.code, r.stderr)
			}
			again, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(first) {
				t.Errorf("the recorded command writes something else:\n--- first\n%s\n--- again\n%s", first, again)
			}
		})
	}
}

// Quoting round-trips whatever a path holds.
func TestCommandQuotingRoundTrips(t *testing.T) {
	o := emit.Options{Desired: []string{"a b.yaml", "it's.yaml", `back\slash`, "tab\there", "plain.yaml"}, ValueArgs: []string{"k=v w", "x="},
		Namespace: "ns", Format: emit.FormatYTT, IncludeUnknown: true, NoOperational: true}
	got, err := emit.ParseCommand(o.Command())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Args(), "\x00") != strings.Join(o.Args(), "\x00") {
		t.Errorf("round trip:\n%q\n%q", o.Args(), got.Args())
	}
	if _, err := emit.ParseCommand("rebasegen generate --from-the-future x"); err == nil || !strings.Contains(err.Error(), "--from-the-future") {
		t.Errorf("an unknown option must be an error naming it, got %v", err)
	}
}

// Headers written before -o became the format (--format FORMAT --output PATH) still read.
func TestCommandOfOlderHeaders(t *testing.T) {
	o, err := emit.ParseCommand("rebasegen generate --desired d.yaml --live l.yaml --format ytt --namespace-value ns --output rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != emit.FormatYTT || o.OutputFile != "rules.yml" || len(o.NamespaceValues) != 1 {
		t.Errorf("got %+v", o)
	}
}

// Regression (probe8 P8-6): a value holding a line break was recorded with bash's $'...', which
// sh (dash) misreads; generate now refuses it before any work, naming the flag, for both targets,
// and writes no file.
func TestGenerateRefusesAValueTheRegenerateLineCannotRecord(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rules.yml")
	hpa := scenario(t, "hpa-replicas")
	for _, args := range [][]string{
		append([]string{"generate", "--value-yaml", "replicas=\n  1", "--output-file", out}, hpa...),
		{"generate", "--target", "argocd", "--output-file", out, "-d", copyTo(t, hpa[1], t.TempDir(), "line\nbreak.yaml"), "-l", hpa[3]},
	} {
		r := rebasegen(t, args...)
		if r.code != exitError || !strings.Contains(r.stderr, "cannot record for sh") {
			t.Errorf("%q: exit %d, stderr %s; want exit 1 and the value refused", args, r.code, r.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: %s written", args, out)
		}
	}
}
