package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// aliasBomb is a kapp Config of 432 bytes whose aliases expand to 9^9 strings (about 2 GB of
// JSON): read by ytt's parser (sniffing a rules file for ytt annotations, rendering a package or
// a rules Secret) or kapp's (a kapp.k14s.io/config ConfigMap's config.yml), which expand every
// alias, it took lint, check and explain past 1.2 GB with no end.
const aliasBomb = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

func TestAliasBombInEveryRuleSourceIsAnError(t *testing.T) {
	indent := "    " + strings.ReplaceAll(strings.TrimSuffix(aliasBomb, "\n"), "\n", "\n    ") + "\n"
	ytt := "#@ load(\"@ytt:data\", \"data\")\n---\n" + aliasBomb
	pkg := filepath.Join(t.TempDir(), "config")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "app.yml"), []byte(ytt), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, want string
		in               generator.Inputs // the rules file is passed as --rules unless in holds it
	}{
		{"a plain rules file", aliasBomb, "rules.yml: document 1 (line 1): aliases expand", generator.Inputs{}},
		{"a ytt rules file", ytt, "rules.yml: document 1 (line ", generator.Inputs{}},
		{"a rules Secret's other key", "apiVersion: v1\nkind: Secret\nmetadata: {name: r}\nstringData:\n  other.yml: |\n" + indent, "rules.yml (other.yml): document 1 (line 1): aliases expand", generator.Inputs{}},
		{"a labelled ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: r, labels: {kapp.k14s.io/config: \"\"}}\ndata:\n  config.yml: |\n" + indent,
			"rules.yml: document 1 (line 1): field data.config.yml: its document 1 (line 1 of the text): aliases expand", generator.Inputs{}},
		{"a package file", "", "app.yml: document 1 (line 3): aliases expand", generator.Inputs{Package: yttrender.Package{Dirs: []string{pkg}}}},
	} {
		in := fixture("hpa-replicas")
		var rules []string
		if tc.file != "" {
			rules = []string{writeFile(t, "rules.yml", tc.file)}
		} else {
			in.Desired, in.Package = nil, tc.in.Package
			rules = []string{classicRules}
		}
		for _, cmd := range []struct {
			name string
			run  func() error
		}{
			{"check", func() error { _, err := generator.Check(in, rules); return err }},
			{"lint", func() error { _, _, err := generator.Lint(in, rules); return err }},
		} {
			done := make(chan error, 1)
			go func() { done <- cmd.run() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "beyond the size limit") {
					t.Errorf("%s, %s: got %v, want an error containing %q", tc.name, cmd.name, err, tc.want)
				}
			case <-time.After(time.Minute):
				t.Fatalf("%s, %s: still reading after a minute", tc.name, cmd.name) // the old code: growing without end
			}
		}
	}
}
