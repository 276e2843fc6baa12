package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainSaysItSpeaksKapp (newcomer3 finding 7): explain of objects Argo CD applied reported
// kapp's adoption ("kapp resets labels and annotations ... its first deploy removes it") with no
// word that this is kapp's view; it says so on stderr, naming the Application and the commands
// that judge for Argo CD, and says nothing of Argo CD for objects it does not track.
func TestExplainSaysItSpeaksKapp(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-cabundle")
	r := rebasegen(t, "explain", "-d", filepath.Join(dir, "desired.yaml"), "-l", filepath.Join(dir, "live.yaml"))
	if want := "note: Argo CD tracks the live objects (Application argo-cabundle): explain says what kapp would do with them (its adoption findings are kapp's); generate --target argocd and check --target argocd judge them for Argo CD\n"; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("explain of Argo CD's objects: exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
	if r := rebasegen(t, append([]string{"explain"}, scenario(t, "hpa-replicas")...)...); r.code != 0 || strings.Contains(r.stderr, "Argo CD") {
		t.Errorf("explain of kapp's objects: exit %d, stderr:\n%s\nwant no word of Argo CD", r.code, r.stderr)
	}
}
