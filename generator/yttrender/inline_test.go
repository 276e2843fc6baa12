package yttrender

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RenderInline renders inline files in the package's own ytt run, as kapp-controller v0.51.0
// renders a PackageInstall's ytt-paths-from-secret-name Secrets: they read the package's schema
// defaults, the package's overlays rewrite their documents (Origin names the overlay and the
// items it wrote), and a run in which they cannot be told from the package's own documents is
// refused.
func TestRenderInlineInThePackagesRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	write("schema.yml", "#@data/values-schema\n---\nautoscaling:\n  min: 2\n")
	write("app.yml", configMap("app"))
	overlay := write("zz-overlay.yml", "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Config\"}), expects=\"0+\"\n---\nrebaseRules:\n#@overlay/append\n- type: remove\n  paths: [[spec, replicas]]\n  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]\n")
	rule := "- type: copy\n  sources: [existing]\n  paths: [[spec, template]]\n  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]\n"
	rules := Template{Source: "secret.yml (rules.yml)", Name: "rules.yml", Data: []byte("#@ load(\"@ytt:data\", \"data\")\napiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n#@ if hasattr(data.values, \"autoscaling\"):\n" + rule + "#@ end\n")}
	other := Template{Source: "secret.yml (a.yml)", Name: "a.yml", Data: []byte(configMap("a"))}
	docs, err := Package{Dirs: []string{dir}}.RenderInline(nil, "secret.yml", []Template{rules, other})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, fmt.Sprintf("%s %s %d %s %v", d.Kind, d.Name, d.Source.Doc, d.Source.From, d.Overlays))
	}
	// kapp-controller's inline directory is read sorted by name; the package's overlay appended
	// rebaseRules[1], the Secret's guarded rule is rebaseRules[0]
	want := "[ConfigMap a 1 a.yml map[] Config  2 rules.yml map[rebaseRules:[" + overlay + "] rebaseRules[1]:[" + overlay + "]]]"
	if fmt.Sprint(got) != want {
		t.Errorf("got  %v\nwant %s", got, want)
	}

	// a data value the package's schema does not declare: named in the Secret's key
	nope := Template{Source: "secret.yml (rules.yml)", Name: "rules.yml", Data: []byte("#@ load(\"@ytt:data\", \"data\")\nkind: Config\nx: #@ data.values.nope\n")}
	if _, err := (Package{Dirs: []string{dir}}).RenderInline(nil, "secret.yml", []Template{nope}); err == nil || !strings.HasPrefix(err.Error(), `secret.yml (rules.yml) line 3: reads data value "nope", which the data values schema (`) {
		t.Errorf("a data value the schema does not declare: %v", err)
	}

	// a package template listing the files of the run: its document changes with the Secret's
	list := write("list.yml", "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: files}\ndata:\n  files: #@ \",\".join(data.list())\n")
	if _, err := (Package{Dirs: []string{dir}}).RenderInline(nil, "secret.yml", []Template{rules}); err == nil || !strings.Contains(err.Error(), "the package's own documents are not the same rendered with secret.yml's files") {
		t.Errorf("a package document listing the files: %v", err)
	}
	if err := os.Remove(list); err != nil {
		t.Fatal(err)
	}

	// a Package whose ytt step's inline.paths kapp-controller writes into the Secret's directory
	for _, tc := range []struct {
		inline string
		ok     bool
	}{{"0-first.yml", true}, {"rules.yml", false}, {"z.yml", false}} {
		cr := packageCRWith(t, map[string]string{"app.yml": configMap("app")}, "      - ytt:\n          inline:\n            paths:\n              "+tc.inline+": |\n                "+strings.ReplaceAll(strings.TrimSpace(configMap("inline")), "\n", "\n                ")+"\n")
		docs, err := Package{CR: cr}.RenderInline(nil, "secret.yml", []Template{rules})
		switch {
		case tc.ok && (err != nil || len(docs) != 1 || docs[0].Source.From != "rules.yml"):
			t.Errorf("inline.paths %s: %v %+v", tc.inline, err, docs)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), `spec.template.spec.template[0].ytt.inline.paths "`+tc.inline+`": kapp-controller writes it into the directory it writes secret.yml's rules.yml into`)):
			t.Errorf("inline.paths %s: %v", tc.inline, err)
		}
	}
}
