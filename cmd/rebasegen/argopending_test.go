package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/argocd"
)

// The Argo CD target's summary counts the changes made in Git a sync applies, as the kapp
// target's counts those its deploy applies ("4 pending changes from Git, applied on deploy"):
// check --target argocd and generate --target argocd listed each as pending, and their last line
// (the CI job's ::notice::) said nothing of them (fix28e item 3). The oracle: Argo CD's own
// StateDiff shows the Deployment OutOfSync for the image bumped in Git, whose old value is the
// one its last sync applied (kubectl.kubernetes.io/last-applied-configuration).
func TestArgoCDSummaryCountsPendingChanges(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "live.yaml")
	liveText, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(desired), "image: nginx:1.25") || !strings.Contains(string(liveText), `"image":"nginx:1.25"`) {
		t.Fatal("fixtures/argocd/argo-hpa no longer holds nginx:1.25 in the manifest and the last sync")
	}
	tmp := t.TempDir()
	pr := writeIn(t, tmp, "pr.yaml", strings.Replace(string(desired), "image: nginx:1.25", "image: nginx:1.27", 1))
	a, err := generator.Analyze(generator.Inputs{Desired: []string{pr}, Live: []string{live}, Namespace: "argo-hpa"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Report.Resources {
		if r.ID.Kind != "Deployment" {
			continue
		}
		d, l, err := r.Objects()
		if err != nil {
			t.Fatal(err)
		}
		if res, err := argocd.Diff(d.Unstructured, l.Unstructured, argocd.Settings{}); err != nil || !res.Modified {
			t.Fatalf("Argo CD's StateDiff: modified %v (%v), want OutOfSync for the image bumped in Git", res.Modified, err)
		}
	}
	ignores := filepath.Join(tmp, "ignores.yml")
	const want = "; 1 pending change from Git, which a sync applies"
	g := rebasegen(t, "generate", "--target", "argocd", "-d", pr, "-l", live, "-n", "argo-hpa", "--output-file", ignores)
	if g.code != 0 || !strings.Contains(lastLine(g.stderr), want) {
		t.Errorf("generate --target argocd: exit %d, last line of stderr %q, want it to hold %q; stderr:\n%s", g.code, lastLine(g.stderr), want, g.stderr)
	}
	for _, f := range []string{"text", "github"} {
		c := rebasegen(t, "check", "--target", "argocd", "-d", pr, "-l", live, "-n", "argo-hpa", "--rules", ignores, "--output", f)
		if c.code != 0 || !strings.Contains(c.stdout, "pending change from Git (Argo CD syncs it)") || !strings.Contains(lastLine(c.stdout), want) {
			t.Errorf("check --target argocd --output %s: exit %d, last line %q, want a pending finding and %q in it; stdout:\n%s", f, c.code, lastLine(c.stdout), want, c.stdout)
		}
	}
}

// lastLine is s's last line, without its newline.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}
