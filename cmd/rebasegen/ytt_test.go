package main

import (
	"fmt"
	"reflect"
	"testing"

	cmdtpl "carvel.dev/ytt/pkg/cmd/template"
	"carvel.dev/ytt/pkg/cmd/ui"
	"carvel.dev/ytt/pkg/files"
	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"
)

// renderYTT runs ytt in-process on one template file with the data value ns, the way kapp-controller's
// ytt template step does (ignoreUnknownComments is an opt-in of that step).
func renderYTT(tpl, ns string, ignoreUnknownComments bool) (string, error) {
	opts := cmdtpl.NewOptions()
	opts.IgnoreUnknownComments = ignoreUnknownComments
	opts.DataValuesFlags.KVsFromStrings = []string{"ns=" + ns}
	f, err := files.NewFileFromSource(files.NewBytesSource("rebase-rules.yml", []byte(tpl)))
	if err != nil {
		return "", err
	}
	out := opts.RunWithFiles(cmdtpl.Input{Files: []*files.File{f}}, ui.NewTTY(false))
	if out.Err != nil {
		return "", out.Err
	}
	if len(out.Files) != 1 {
		return "", fmt.Errorf("ytt wrote %d files, want 1", len(out.Files))
	}
	return string(out.Files[0].Bytes()), nil
}

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
// package's ytt step), are the same kapp Config as the config format.
// --force: this test is about rendering; TestGolden checks that verification passes.
func TestYTTRendersToConfig(t *testing.T) {
	in := scenario(t, "package-app")
	ns := in[len(in)-1]
	gen := func(format ...string) string {
		r := rebasegen(t, append(append([]string{"generate", "--force", "--format"}, format...), in...)...)
		if r.stdout == "" {
			t.Fatalf("generate --format %s: exit code %d, no output; stderr:\n%s", format[0], r.code, r.stderr)
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
			out, err := renderYTT(c.tpl, ns, false)
			if err != nil {
				t.Errorf("ytt rejects the output with its default options: %v", err)
				if out, err = renderYTT(c.tpl, ns, true); err != nil {
					t.Fatalf("ytt --ignore-unknown-comments: %v", err)
				}
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
