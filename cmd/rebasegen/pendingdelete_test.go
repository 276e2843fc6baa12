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
	desired := withoutHPA(t, fix, dir)
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

// A pending delete names the rules in force that select it and no desired object, and where a rule
// selects desired objects too, each of its matchers that selects it alone (a kind among a rule's
// resourceMatchers, a name in an andMatcher's anyMatcher: what generate writes for several
// resources), at the matcher's line, in every format: lint says of them that they match none of
// the desired objects, and they can go once the deploy deleted the object. Before, a rule selecting
// any desired object was not named (newcomer17's PodDisruptionBudget removed in Git: two rules'
// matchers of it, named by lint only; issue 24).
func TestPendingDeleteNamesTheMatchersSelectingItAlone(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	desired := withoutHPA(t, fix, dir)
	hand := filepath.Join(dir, "hand.yml")
	if err := os.WriteFile(hand, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [metadata, labels, team]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
  - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
- type: copy
  sources: [new, existing]
  paths:
  - [metadata, labels, tier]
  resourceMatchers:
  - andMatcher:
      matchers:
      - anyMatcher:
          matchers:
          - kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}
          - kindNamespaceNameMatcher: {kind: HorizontalPodAutoscaler, namespace: hpa-replicas, name: web}
      - hasNamespaceMatcher: {}
- type: copy
  sources: [new, existing]
  paths:
  - [metadata, labels, zone]
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: HorizontalPodAutoscaler, namespace: hpa-replicas, name: web}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	named := []string{
		hand + ":10, document 1, rebaseRules[0].resourceMatchers[1]",
		hand + ":21, document 1, rebaseRules[1].resourceMatchers[0].andMatcher.matchers[0].anyMatcher.matchers[1]",
		hand + ":23, document 1, rebaseRules[2]",
	}
	args := []string{"check", "--rules", hand, "-d", desired, "-l", fix[3], "-n", fix[5]}
	for _, out := range []string{"text", "json", "github"} {
		r := rebasegen(t, append(args, "-o", out)...)
		var line string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.Contains(l, "pending delete: autoscaling/HorizontalPodAutoscaler hpa-replicas/web") {
				line = l
			}
		}
		if out == "json" {
			var j struct{ PendingDeletes []fieldJSON }
			if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || len(j.PendingDeletes) != 1 {
				t.Fatalf("json: want 1 pending delete (%v):\n%s", err, r.stdout)
			}
			line = j.PendingDeletes[0].Evidence
		}
		want := strings.Join(named, "; ")
		if !strings.HasSuffix(line, ": "+want) || strings.Contains(line, "rebaseRules[0].resourceMatchers[0]") {
			t.Errorf("-o %s: the pending delete\n%s\nwant it ending with\n%s\n%s%s", out, line, want, r.stdout, r.stderr)
		}
	}
}

// With a wrong -n (the CRD, cluster-scoped, pairs; its custom resource does not), the live
// custom resource is the one the pending create's "did you mean -n" names, not a pending delete
// of its own: one hint, where every live object of the app was listed once more as deleted.
func TestWrongNamespaceListsNoPendingDeletes(t *testing.T) {
	fix := scenario(t, "crd-defaults")
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append(append([]string{"generate"}, fix...), "--output-file", rules)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	args := []string{"check", "--rules", rules, "-d", fix[1], "-l", fix[3], "-n", "wrong"}
	r := rebasegen(t, args...)
	hint := "pending create, not compared: crd-defaults.rebasegen.dev/Backup wrong/nightly: no live counterpart: kapp would create it, nothing was compared; the live objects hold it in namespace crd-defaults: did you mean -n crd-defaults?\n"
	if r.code != exitPending || !strings.Contains(r.stdout, hint) || strings.Contains(r.stdout, "pending delete") {
		t.Errorf("text: exit %d, want %d, the hint %q and no pending delete:\n%s%s", r.code, exitPending, hint, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(args, "-o", "json")...)
	var j struct{ PendingCreates, PendingDeletes []fieldJSON }
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != exitPending || len(j.PendingCreates) != 1 || len(j.PendingDeletes) != 0 {
		t.Errorf("json: exit %d, want %d, 1 pending create and no pending delete (%v):\n%s", r.code, exitPending, err, r.stdout)
	}
}

// withoutHPA writes into dir the manifests of scenario fix (hpa-replicas) without the HPA, which
// is then no longer desired: the Deployment only. It returns their file.
func withoutHPA(t *testing.T, fix []string, dir string) string {
	t.Helper()
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	desired := filepath.Join(dir, "desired.yaml")
	if err := os.WriteFile(desired, []byte(strings.SplitN(string(data), "\n---\n", 2)[0]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return desired
}
