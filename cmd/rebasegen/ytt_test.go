package main

import (
	"reflect"
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
			out, err := ytttest.Render(c.tpl, ns, false)
			if err != nil {
				t.Errorf("ytt rejects the output with its default options: %v", err)
				if out, err = ytttest.Render(c.tpl, ns, true); err != nil {
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
