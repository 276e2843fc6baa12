package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --sync-option: the options a manual sync runs with, which replace the Application's (Argo CD
// v3.6.1 server/application Sync; argocd app sync --server-side sends ServerSideApply=true alone),
// judged for what the sync does with the fields the ignores take (fix32f item 2, issue 28). On
// examples/argocd/index-pointer.yml with RespectIgnoreDifferences=true in the Application (the
// README's respect.yml), such a sync writes the manifest's replicas over the HPA's and applies the
// hidden image: a warning, and the hidden finding saying so; the exit status stays 3 (the image is
// hidden either way). Only with --target argocd, and only Argo CD's NAME=VALUE, matched exactly.
func TestSyncOptionFlag(t *testing.T) {
	in := scenario(t, "hpa-replicas")
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "argocd", "index-pointer.yml"))
	if err != nil {
		t.Fatal(err)
	}
	respect := filepath.Join(t.TempDir(), "respect.yml")
	if err := os.WriteFile(respect, []byte(strings.Replace(string(data), "\nspec:\n", "\nspec:\n  syncPolicy: {syncOptions: [RespectIgnoreDifferences=true]}\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	check := append([]string{"check", "--target", "argocd", "--rules", respect}, in...)
	r := rebasegen(t, append(check, "--sync-option", "ServerSideApply=true")...)
	if r.code != exitPending || !strings.Contains(r.stderr, "warning: apps/Deployment hpa-replicas/web spec.replicas: ignored where a controller owns it, but the sync options given (--sync-option) do not hold RespectIgnoreDifferences=true") ||
		!strings.Contains(r.stdout, "image: a change made in Git to this declared value does not show in Argo CD under the ignores, and no controller owns it: applied by the sync") {
		t.Errorf("--sync-option ServerSideApply=true: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(check, "--sync-option", "ServerSideApply=true", "--sync-option", "RespectIgnoreDifferences=true")...)
	if r.code != exitPending || !strings.Contains(r.stderr, "note: apps/Deployment hpa-replicas/web spec.replicas: ignored where a controller owns it; the sync option RespectIgnoreDifferences=true given (--sync-option) keeps") ||
		!strings.Contains(r.stdout, "no controller owns it: the sync never applies it") {
		t.Errorf("--sync-option with RespectIgnoreDifferences=true: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--rules", respect, "--sync-option", "ServerSideApply=true"}, "--sync-option: an Argo CD sync option, only with --target argocd"},
		{append(check, "--sync-option", "Prune"), "--sync-option Prune: not a sync option (NAME=VALUE"},
		{append(check, "--sync-option", "RespectIgnoreDifferences=True"), "--sync-option RespectIgnoreDifferences=True: Argo CD matches the option exactly"},
		{[]string{"generate", "--target", "argocd", "--sync-option", "=true"}, "--sync-option =true: not a sync option"},
	} {
		if r := rebasegen(t, append(tc.args, in...)...); r.code != exitError || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 1 and %q\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
	// generate: the file is the same, the note says what that sync does
	plain := rebasegen(t, append([]string{"generate", "--target", "argocd"}, in...)...)
	manual := rebasegen(t, append([]string{"generate", "--target", "argocd", "--sync-option", "Replace=true"}, in...)...)
	if plain.code != 0 || manual.code != 0 || plain.stdout != manual.stdout || !strings.Contains(manual.stderr, "warning: apps/Deployment hpa-replicas/web spec.replicas: ignored where a controller owns it, but the sync options given (--sync-option)") {
		t.Errorf("generate --sync-option Replace=true: exit %d (%d without)\n%s%s", manual.code, plain.code, manual.stdout, manual.stderr)
	}
}
