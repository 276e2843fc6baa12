package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Regression (issue 23): a live object of the app that is no longer desired (kapp deletes it on
// deploy) was never mentioned by check. It is a pending delete in every format, exit 3 with
// --fail-on-delete (a warning, exit 0, without: newcomer15 N15-1); a live
// object kapp did not create (no identity annotation for itself: a controller's, transient to
// kapp) or of another app is not.
func TestCheckReportsPendingDeletes(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	desired := filepath.Join(dir, "desired.yaml") // the Deployment only: the HPA is no longer desired
	if err := os.WriteFile(desired, []byte(strings.SplitN(string(data), "\n---\n", 2)[0]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "--output-file", rules, "-d", desired, "-l", fix[3], "-n", fix[5]); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	live, err := os.ReadFile(fix[3])
	if err != nil {
		t.Fatal(err)
	}
	// the app's label as captured (a number kapp chose), on the first object's metadata
	appLabel := regexp.MustCompile(`(?m)\A((?:.*\n)*?  labels:\n    kapp\.k14s\.io/app: )"[0-9]+"`)
	if !appLabel.Match(live) {
		t.Fatalf("%s: no kapp.k14s.io/app label", fix[3])
	}
	for _, c := range []struct {
		name, live string
		deletes    int
	}{
		{"the app's", string(live), 1},
		{"not created by kapp", strings.Replace(string(live), "kapp.k14s.io/identity: v1;hpa-replicas/autoscaling/HorizontalPodAutoscaler/web;autoscaling/v2", "kapp.k14s.io/identity: v1;other/autoscaling/HorizontalPodAutoscaler/web;autoscaling/v2", 1), 0},
		{"another app's", appLabel.ReplaceAllString(string(live), "${1}\"42\""), 0},
	} {
		l := filepath.Join(dir, "live.yaml")
		if err := os.WriteFile(l, []byte(c.live), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"check", "--rules", rules, "-d", desired, "-l", l, "-n", "hpa-replicas", "--fail-on-delete"}
		r := rebasegen(t, args...)
		line := "pending delete: autoscaling/HorizontalPodAutoscaler hpa-replicas/web: a live object of the app"
		want := 0
		if c.deletes > 0 {
			want = exitPending
		}
		if got := strings.Count(r.stdout, line); got != c.deletes || r.code != want || c.deletes > 0 && !strings.Contains(r.stdout, ", 1 pending delete;") {
			t.Errorf("%s: want %d pending deletes, exit %d, got %d, exit %d:\n%s%s", c.name, c.deletes, want, got, r.code, r.stdout, r.stderr)
		}
		if c.deletes == 0 {
			continue
		}
		// in the job's log, at no file: the rules file did not cause it (newcomer7 N7-9 g: it
		// was annotated at its line 1), and the deleted object has no document
		r = rebasegen(t, append(args, "--output", "github")...)
		if r.code != exitPending || !strings.Contains(r.stdout, "\n::error::pending delete: autoscaling/HorizontalPodAutoscaler hpa-replicas/web") && !strings.HasPrefix(r.stdout, "::error::pending delete: autoscaling/HorizontalPodAutoscaler hpa-replicas/web") {
			t.Errorf("github: want the pending delete, exit 3, got %d:\n%s", r.code, r.stdout)
		}
		r = rebasegen(t, append(args, "--output", "json")...)
		var j struct{ PendingDeletes []fieldJSON }
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != exitPending || len(j.PendingDeletes) != 1 || j.PendingDeletes[0].Resource != "autoscaling/HorizontalPodAutoscaler hpa-replicas/web" {
			t.Errorf("json: want the pending delete, exit 3, got %d (%v):\n%s", r.code, err, r.stdout)
		}
	}
}
