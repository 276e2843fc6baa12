package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The captured hpa-replicas objects with the HPA labelled as another kapp app's (in the object and
// in what kapp last applied): kapp's deploy fails its ownership check before applying anything
// ("... is already associated with a different label"), so a change made in Git is never
// applied. check passed it (exit 0, "kapp keeps 2/2", an image bump "kapp applies it on deploy")
// and generate wrote rules for it (probe9 P9-3); kapp's own check is the oracle of
// generator.TestOwnershipConflictIsKappsDeployFailing. Every command and format names the object
// and both label values; check and generate exit 3, and generate writes nothing.
func TestAnotherAppsObjectFailsEveryCommand(t *testing.T) {
	const app, other = "1795657514432486852", "1111111111111111111"
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(fix[3])
	if err != nil {
		t.Fatal(err)
	}
	deployment, hpa, ok := strings.Cut(string(data), "kind: HorizontalPodAutoscaler")
	if !ok || !strings.Contains(hpa, app) {
		t.Fatal("hpa-replicas/live.yaml: no HPA labelled with the app's value after the Deployment")
	}
	live := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(live, []byte(deployment+"kind: HorizontalPodAutoscaler"+strings.ReplaceAll(hpa, app, other)), 0o644); err != nil {
		t.Fatal(err)
	}
	desired, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	bumped := filepath.Join(dir, "bumped.yaml")
	if err := os.WriteFile(bumped, []byte(strings.Replace(string(desired), "nginx:1.25", "nginx:1.27", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	const object = "autoscaling/HorizontalPodAutoscaler hpa-replicas/web"
	names := func(s string) bool {
		return strings.Contains(s, object) && strings.Contains(s, "kapp.k14s.io/app="+other) && strings.Contains(s, "kapp.k14s.io/app="+app) &&
			strings.Contains(s, "ownership check")
	}
	args := []string{"check", "--rules", rules, "-d", bumped, "-l", live, "-n", "hpa-replicas"}

	r := rebasegen(t, args...)
	if r.code != exitPending || !names(r.stdout) || !strings.Contains(r.stdout, "kapp's deploy fails") {
		t.Errorf("text: want exit %d naming the HPA and both values, got %d:\n%s%s", exitPending, r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(args, "--output", "json")...)
	var j struct{ Ownership []fieldJSON }
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != exitPending || len(j.Ownership) != 1 ||
		!names(j.Ownership[0].Resource+" "+j.Ownership[0].Evidence) {
		t.Errorf("json: want exit %d and the HPA under ownership, got %d (%v):\n%s", exitPending, r.code, err, r.stdout)
	}
	r = rebasegen(t, append(args, "--output", "github")...)
	if r.code != exitPending || !strings.Contains(r.stdout, "::error file="+bumped) || !names(r.stdout) {
		t.Errorf("github: want exit %d and an error annotation on the manifest naming the HPA, got %d:\n%s", exitPending, r.code, r.stdout)
	}

	out := filepath.Join(dir, "new-rules.yml")
	r = rebasegen(t, "generate", "-d", bumped, "-l", live, "-n", "hpa-replicas", "--output-file", out)
	if _, err := os.Stat(out); r.code != exitPending || !names(r.stderr) || !os.IsNotExist(err) {
		t.Errorf("generate: want exit %d, nothing written, the HPA named; got %d (written: %v):\n%s", exitPending, r.code, err == nil, r.stderr)
	}
	r = rebasegen(t, "explain", "-d", bumped, "-l", live, "-n", "hpa-replicas")
	if r.code != 0 || !names(r.stderr) {
		t.Errorf("explain: want a warning naming the HPA and both values, got exit %d:\n%s", r.code, r.stderr)
	}
}

// oneApp is live, objects captured from several kapp apps, with every object labelled as the first
// one's app (kapp.k14s.io/app, wherever kapp wrote it): one app's objects, as kapp's deploy of
// them needs.
func oneApp(live string) string {
	values := regexp.MustCompile(`kapp\.k14s\.io/app: "?([0-9]+)`).FindAllStringSubmatch(live, -1)
	for _, v := range values {
		live = strings.ReplaceAll(live, v[1], values[0][1])
	}
	return live
}
