package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With -o github (check) and --report github (generate) the Argo CD target's notes are workflow
// annotations beside its findings, as the kapp target's findings are, not lines on stderr that a
// job's summary never shows (fix32f, issue 28): what a sync does with the HPA's replicas an
// ignore takes (a warning without RespectIgnoreDifferences=true, a notice with it) at the entry
// taking them, and an object no Application tracks at its manifest. The lines are hand-read:
// examples/argocd/index-pointer.yml's entry is its 11th line, the Application generate writes
// for fixtures/hpa-replicas holds its entry at line 10 (README), the Deployment starts
// desired.yaml.
func TestArgoCDNotesAsGitHubAnnotations(t *testing.T) {
	in := scenario(t, "hpa-replicas")
	desired := in[1]
	example := filepath.Join("..", "..", "examples", "argocd", "index-pointer.yml")
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// the README's sed: the option on the line after spec:, the entry one line down
	respect := write("respect.yml", strings.Replace(string(data), "\nspec:\n", "\nspec:\n  syncPolicy: {syncOptions: [RespectIgnoreDifferences=true]}\n", 1))
	// a second Application: the Deployment, which no tracking id names, is judged under both
	other := write("other.yml", string(data)+"---\n"+strings.Replace(string(data), "name: my-app", "name: other", 1))
	replicas := "apps/Deployment hpa-replicas/web spec.replicas: ignored where a controller owns it"
	out := filepath.Join(dir, "ignores.yml")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"check", []string{"check", "--target", "argocd", "--rules", example, "-o", "github"},
			[]string{"::warning file=" + example + ",line=11::" + replicas + ", but no Application read sets the sync option RespectIgnoreDifferences=true"}},
		{"check with the option", []string{"check", "--target", "argocd", "--rules", respect, "-o", "github"},
			[]string{"::notice file=" + respect + ",line=12::" + replicas + "; the Application's sync option RespectIgnoreDifferences=true keeps"}},
		{"check, two Applications", []string{"check", "--target", "argocd", "--rules", other, "-o", "github"},
			[]string{"::warning file=" + desired + ",line=1::apps/Deployment hpa-replicas/web: no Application tracks it"}},
		{"generate", []string{"generate", "--target", "argocd", "--report", "github", "--output-file", out},
			[]string{"::notice file=" + out + ",line=10::" + replicas + "; the Application's sync option RespectIgnoreDifferences=true keeps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rebasegen(t, append(tc.args, in...)...)
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("exit %d: no %q on stdout\n%s", r.code, w, r.stdout)
				}
			}
			if strings.Contains(r.stderr, "note: apps/") || strings.Contains(r.stderr, "warning: apps/") {
				t.Errorf("a note left on stderr, which a workflow's summary does not show:\n%s", r.stderr)
			}
		})
	}
}
