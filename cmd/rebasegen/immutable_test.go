package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A change made in Git to a Job's pod template (an image bump) is one kapp's deploy can only fail
// on: the API server refuses any change to a Job's spec.template ("field is immutable",
// k8s.io/kubernetes pkg/apis/batch/validation). check failed nothing and called it a change kapp
// applies on deploy (newcomer24 finding 5); it fails the gate in every format, naming the field,
// and an annotation that has kapp replace the Job lets it pass again as a pending change.
func TestCheckFailsAChangeKappCannotApply(t *testing.T) {
	fix := scenario(t, "job-cronjob")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(data), "busybox:1.36") // the Job's container comes first
	bumped := filepath.Join(dir, "bumped.yaml")
	if err := os.WriteFile(bumped, []byte(first+"busybox:1.37"+rest), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"check", "--rules", rules, "-d", bumped}, fix[2:]...)
	const field = "batch/Job job-cronjob/db-migrate spec.template.spec.containers[name=migrate].image"

	r := rebasegen(t, args...)
	if r.code != exitPending || !strings.Contains(r.stdout, "pending change from Git that kapp's deploy fails on (refused by the API server's validation): "+field+": ") ||
		!strings.Contains(r.stdout, "spec.template is immutable") {
		t.Errorf("text: want exit %d and the Job's image as a change kapp's deploy fails on, got %d:\n%s%s", exitPending, r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(args, "--output", "json")...)
	var j struct{ Immutable, Pending []fieldJSON }
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != exitPending || len(j.Immutable) != 1 || len(j.Pending) != 0 ||
		j.Immutable[0].Resource+" "+j.Immutable[0].Path != field {
		t.Errorf("json: want exit %d and the image under immutable, got %d (%v):\n%s", exitPending, r.code, err, r.stdout)
	}

	// kapp replaces the Job when the update is refused: the change is what kapp applies
	replaced := filepath.Join(dir, "replaced.yaml")
	withAnnotation := strings.Replace(first, "  name: db-migrate\n", "  name: db-migrate\n  annotations:\n    kapp.k14s.io/update-strategy: fallback-on-replace\n", 1)
	if withAnnotation == first {
		t.Fatal("the Job's metadata.name line is not in job-cronjob/desired.yaml")
	}
	if err := os.WriteFile(replaced, []byte(withAnnotation+"busybox:1.37"+rest), 0o644); err != nil {
		t.Fatal(err)
	}
	r = rebasegen(t, append([]string{"check", "--rules", rules, "-d", replaced}, fix[2:]...)...)
	if strings.Contains(r.stdout, "kapp's deploy fails on") || !strings.Contains(r.stdout, "pending change from Git (kapp applies it on deploy): "+field) {
		t.Errorf("with update-strategy fallback-on-replace: want the image as a pending change, got exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
