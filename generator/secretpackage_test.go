package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// copyContainers copies the whole container list of every Deployment from the cluster: every
// change made in Git to a container is hidden.
const copyContainers = `- type: copy
  sources: [existing]
  paths:
  - [spec, template, spec, containers]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`

// kapp-controller v0.51.0 renders the files of a PackageInstall's ytt-paths-from-secret-name
// Secrets in the package's own ytt run (pkg/template/ytt.go: the package's paths, then the inline
// directory the Secrets' keys are written into): they read the package's data values and schema,
// and the package's overlays rewrite their Configs. check rendered the Secret apart and exited 0
// while kapp copied the containers from the cluster: a rule guarded by hasattr(data.values, ...)
// on a value the package's schema declares (probe4 finding 5), a rule a package overlay appends to
// every Config (probe4 finding 7).
func TestCheckRendersARulesSecretWithThePackage(t *testing.T) {
	hpaWeb := filepath.Join("..", "fixtures", "packages", "hpa-web")
	withOverlay := t.TempDir()
	for _, f := range []string{"app.yml", "schema.yml"} {
		data, err := os.ReadFile(filepath.Join(hpaWeb, "config", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(withOverlay, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	overlay := filepath.Join(withOverlay, "zz-overlay.yml")
	if err := os.WriteFile(overlay, []byte("#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Config\"}), expects=\"0+\"\n---\nrebaseRules:\n#@overlay/append\n"+copyContainers), 0o644); err != nil {
		t.Fatal(err)
	}
	replicas := "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [new, existing]\n  paths: [[spec, replicas]]\n  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]\n"
	guarded := "#@ load(\"@ytt:data\", \"data\")\napiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n#@ if hasattr(data.values, \"autoscaling\"):\n" + copyContainers + "#@ end\n"
	for _, tc := range []struct {
		name, pkg, extra, want string
		line                   int
	}{
		{"a rule guarded by a value of the package's schema", filepath.Join(hpaWeb, "config"), guarded, `data["extra.yml"] rebaseRules[0]`, 13},
		{"a rule the package's overlay appends", withOverlay, "", `data["rebase-rules.yml"] rewritten by the package's overlay ` + overlay + `: rebaseRules[1]`, 5},
	} {
		secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: web-rebase-rules, namespace: hpa-replicas}\nstringData:\n  rebase-rules.yml: |\n" + indent(replicas)
		if tc.extra != "" {
			secret += "  extra.yml: |\n" + indent(tc.extra)
		}
		f := writeFile(t, "secret.yml", secret)
		in := fixture("hpa-replicas")
		in.Desired = nil
		in.Package = yttrender.Package{Dirs: []string{tc.pkg}, ValuesFiles: []string{filepath.Join(hpaWeb, "values.yml")}}
		c, err := generator.Check(in, []string{f})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		image := false
		for _, h := range c.Hidden {
			if h.Path != "spec.template.spec.containers[name=web].image" {
				continue
			}
			image = true
			if h.At.File != f || h.At.Line != tc.line || h.At.Key != tc.want {
				t.Errorf("%s: the image is hidden by %s, want %s:%d, document 1, %s", tc.name, h.At, f, tc.line, tc.want)
			}
		}
		if !image {
			t.Errorf("%s: the container's image is not hidden: %v", tc.name, hiddenPaths(c))
		}
		// lint judges the rules as check does
		findings, _, err := generator.Lint(in, []string{f})
		if err != nil {
			t.Fatalf("%s: lint: %v", tc.name, err)
		}
		hides := false
		for _, l := range findings {
			hides = hides || l.Severity == lint.Error && strings.Contains(l.Message, "the rule hides a change made in Git")
		}
		if !hides {
			t.Errorf("%s: lint finds no hiding rule: %+v", tc.name, findings)
		}
	}
}

// indent is text as a YAML block scalar's lines, four spaces in.
func indent(text string) string {
	return "    " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n    ") + "\n"
}
