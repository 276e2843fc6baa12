package argocd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/argocd"
)

// readFixture is fixtures/argocd/<name>/<file>.
func readFixture(t *testing.T, name, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "argocd", name, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// One field, one verdict (newcomer3 finding 11): a change made in Git to the image, which an
// ignore hides, is reported hidden, never also as a difference "Argo CD shows"; a difference the
// ignores hide that no finding of the mutation check names says that Argo CD does not show it.
func TestOneFieldOneVerdict(t *testing.T) {
	desired := strings.Replace(readFixture(t, "argo-hpa", "desired.yaml"), "image: nginx:1.25", "image: nginx:1.26", 1)
	a := analyzeFiles(t, desired, readFixture(t, "argo-hpa", "live.yaml"), "argo-hpa")
	s := settingsOf(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n  ignoreDifferences:\n"+
		"  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas], jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == \"web\") | .image']}\n")
	res, err := argocd.Synthesize(a.Report, s)
	if err != nil {
		t.Fatal(err)
	}
	v, err := argocd.Verify(a.Report, s, res.Ghost)
	if err != nil {
		t.Fatal(err)
	}
	const image = "spec.template.spec.containers[name=web].image"
	var kinds []string
	for _, f := range argocd.Findings(res.Left, v, "") {
		if f.Path == image {
			kinds = append(kinds, string(f.Kind))
		}
		if strings.Contains(f.Evidence, "Argo CD shows it") && f.Path == image {
			t.Errorf("%s %s: %s, though the ignores hide it", f.Kind, f.Path, f.Evidence)
		}
	}
	if len(kinds) != 1 || kinds[0] != "hidden" {
		t.Errorf("findings on %s: %v, want one: hidden", image, kinds)
	}
}
