package yttrender

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	vendirconf "carvel.dev/vendir/pkg/vendir/config"
)

// packageCRWith is a Package whose inline fetch holds files, with template steps steps (YAML,
// indented for spec.template.spec.template).
func packageCRWith(t *testing.T, files map[string]string, steps string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata: {name: x.1.0.0}\nspec:\n  template:\n    spec:\n      fetch:\n      - inline:\n          paths:\n")
	for n, content := range files {
		b.WriteString("            " + n + ": |\n              " + strings.ReplaceAll(strings.TrimSpace(content), "\n", "\n              ") + "\n")
	}
	b.WriteString("      template:\n" + steps)
	f := filepath.Join(t.TempDir(), "package.yml")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func configMap(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\n"
}

// The Package's ytt step is rendered as kapp-controller runs it: its inline paths (a rule there
// was ignored), file marks, valuesFrom paths and options; two inline files no longer panic ytt
// (files without an order); what needs the cluster or the network, and every other template step,
// is refused naming the field.
func TestPackageCRTemplateAsKappControllerRunsIt(t *testing.T) {
	values := "#@data/values\n---\nname: from-schema\n"
	named := "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: #@ data.values.name\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		steps string
		want  string // the names rendered, or the error
	}{
		{"two files", map[string]string{"b.yml": configMap("b"), "a.yml": configMap("a")}, "      - ytt: {}\n", "a b"},
		{"inline paths of the ytt step", map[string]string{"a.yml": configMap("a")},
			"      - ytt:\n          inline:\n            paths:\n              rules.yml: |\n                apiVersion: kapp.k14s.io/v1alpha1\n                kind: Config\n", "a Config"},
		{"paths", map[string]string{"config/a.yml": configMap("a"), "other/b.yml": configMap("b")}, "      - ytt:\n          paths: [config]\n", "a"},
		{"file marks", map[string]string{"a.yml": configMap("a"), "b.yml": configMap("b")}, "      - ytt:\n          fileMarks: [\"b.yml:exclude=true\"]\n", "a"},
		{"valuesFrom path", map[string]string{"values.yml": values, "a.yml": named, "ci/values.yml": "name: from-values-from\n"},
			"      - ytt:\n          paths: [values.yml, a.yml]\n          valuesFrom:\n          - path: ci/values.yml\n", "from-values-from"},
		{"kbld after ytt", map[string]string{"a.yml": configMap("a")}, "      - ytt: {}\n      - kbld: {paths: [\"-\"]}\n", "spec.template.spec.template[1] is kbld"},
		{"helm first", map[string]string{"a.yml": configMap("a")}, "      - helmTemplate: {}\n", "spec.template.spec.template[0] is helmTemplate"},
		{"valuesFrom Secret", map[string]string{"a.yml": configMap("a")}, "      - ytt:\n          valuesFrom:\n          - secretRef: {name: v}\n", "spec.template.spec.template[0].ytt.valuesFrom[0]"},
		{"inline pathsFrom of the ytt step", map[string]string{"a.yml": configMap("a")}, "      - ytt:\n          inline:\n            pathsFrom:\n            - secretRef: {name: v}\n", "spec.template.spec.template[0].ytt.inline.pathsFrom"},
		{"an unknown field", map[string]string{"a.yml": configMap("a")}, "      - ytt:\n          newField: true\n", "spec.template.spec.template[0].ytt"},
		{"a path outside the fetch", map[string]string{"a.yml": configMap("a")}, "      - ytt:\n          paths: [../etc]\n", "outside the fetched files"},
		// kapp-controller passes the deploy step's rawOptions to kapp deploy: a flag that changes
		// what kapp diffs or applies is refused, naming it; one that does not passes
		{"rawOptions that leave kapp's diff alone", map[string]string{"a.yml": configMap("a")}, "      - ytt: {}\n      deploy:\n      - kapp:\n          rawOptions: [--wait-timeout=5m, --apply-default-update-strategy=fallback-on-replace, --diff-changes=true]\n", "a"},
		{"rawOptions: a filter", map[string]string{"a.yml": configMap("a")}, "      - ytt: {}\n      deploy:\n      - kapp:\n          rawOptions: [--filter-kind=HorizontalPodAutoscaler]\n", "spec.template.spec.deploy[0].kapp.rawOptions[0]: --filter-kind=HorizontalPodAutoscaler changes"},
		{"rawOptions: diff-run", map[string]string{"a.yml": configMap("a")}, "      - ytt: {}\n      deploy:\n      - kapp:\n          rawOptions: [--diff-run=true]\n", "rawOptions[0]: --diff-run=true changes"},
		{"rawOptions: not --name=value", map[string]string{"a.yml": configMap("a")}, "      - ytt: {}\n      deploy:\n      - kapp:\n          rawOptions: [--diff-run]\n", `rawOptions[0]: "--diff-run" is not of the form --name=value`},
		{"two deploy steps", map[string]string{"a.yml": configMap("a")}, "      - ytt: {}\n      deploy:\n      - kapp: {}\n      - kapp: {}\n", "spec.template.spec.deploy has 2 steps"},
	} {
		docs, err := Package{CR: packageCRWith(t, tc.files, tc.steps)}.Render(nil)
		var got []string
		if err != nil {
			got = []string{err.Error()}
		}
		for _, d := range docs {
			if d.Kind == "Config" {
				got = append(got, d.Kind)
			} else {
				got = append(got, d.Name)
			}
		}
		if s := strings.Join(got, " "); !strings.Contains(s, tc.want) || (err == nil && s != tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, s, tc.want)
		}
	}
}

// A deploy step's rawOptions flag that is refused is named by file, document and line, as other
// input errors are (it named the field alone). The line is found in the file's text.
func TestRawOptionRefusalNamesItsLine(t *testing.T) {
	f := packageCRWith(t, map[string]string{"a.yml": configMap("a")},
		"      - ytt: {}\n      deploy:\n      - kapp:\n          rawOptions:\n          - --wait-timeout=5m\n          - --filter-kind=HorizontalPodAutoscaler\n")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "- --filter-kind=") {
			line = i + 1
		}
	}
	_, err = Package{CR: f}.Render(nil)
	want := fmt.Sprintf("%s: document 1 (line %d): spec.template.spec.deploy[0].kapp.rawOptions[1]: --filter-kind=HorizontalPodAutoscaler changes", f, line)
	if line == 0 || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// Fetch directories that overlap are refused as vendir refuses them (kapp-controller's fetch
// fails and nothing deploys), naming both fetches; directories that only share a name prefix
// still render. The oracle is vendir's own config validation, given the directories
// kapp-controller v0.51.0 asks for (pkg/fetch/vendir.go AddDir: the fetch's path, else its index).
func TestPackageCROverlappingFetchDirectories(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths []string // each fetch's path, "" for none
		want  string   // the names rendered, or the error
	}{
		{"a directory inside another", []string{"config", "config/values"}, "spec.template.spec.fetch[0] (directory \"config\") and spec.template.spec.fetch[1] (directory \"config/values\") overlap"},
		{"a path equal to another fetch's index", []string{"1", ""}, "spec.template.spec.fetch[0] (directory \"1\") and spec.template.spec.fetch[1] (directory \"1\") overlap"},
		{"a shared name prefix only", []string{"config", "config-values"}, "b a"}, // ytt sorts config-values/ before config/
	} {
		var b strings.Builder
		b.WriteString("apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata: {name: x.1.0.0}\nspec:\n  template:\n    spec:\n      fetch:\n")
		vendir := vendirconf.Config{APIVersion: "vendir.k14s.io/v1alpha1", Kind: "Config"}
		for i, p := range tc.paths {
			name := string(rune('a' + i))
			b.WriteString("      - inline:\n          paths:\n            " + name + ".yml: |\n              " + strings.ReplaceAll(strings.TrimSpace(configMap(name)), "\n", "\n              ") + "\n")
			dir := fmt.Sprint(i)
			if p != "" {
				b.WriteString("        path: " + strconv.Quote(p) + "\n")
				dir = p
			}
			vendir.Directories = append(vendir.Directories, vendirconf.Directory{Path: dir, Contents: []vendirconf.DirectoryContents{{Path: ".", Inline: &vendirconf.DirectoryContentsInline{}}}})
		}
		b.WriteString("      template:\n      - ytt: {}\n")
		f := filepath.Join(t.TempDir(), "package.yml")
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		docs, err := Package{CR: f}.Render(nil)
		var got []string
		if err != nil {
			got = []string{err.Error()}
		}
		for _, d := range docs {
			got = append(got, d.Name)
		}
		if s := strings.Join(got, " "); !strings.Contains(s, tc.want) || (err == nil && s != tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, s, tc.want)
		}
		if verr := vendir.Validate(); (verr != nil) != (err != nil) {
			t.Errorf("%s: vendir says %v, rebasegen %v", tc.name, verr, err)
		}
	}
}

// Two inline paths naming one file (vendir writes both, in map order, and keeps either) are
// refused naming both, the same way on every run.
func TestPackageCRInlinePathsNamingOneFile(t *testing.T) {
	f := packageCRWith(t, map[string]string{"config/rules.yml": configMap("a"), "./config/rules.yml": configMap("b")}, "      - ytt: {}\n")
	for range 8 {
		_, err := Package{CR: f}.Render(nil)
		if want := `spec.template.spec.fetch[0].inline.paths: "./config/rules.yml" and "config/rules.yml" name the same file`; err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want an error containing %s", err, want)
		}
	}
}
