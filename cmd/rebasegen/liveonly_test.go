package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Live objects no manifest declares that a controller made carry the app's kapp.k14s.io/app label
// (the Endpoints controller copies a Service's labels, the StatefulSet controller a template's
// onto its PVCs) without a kapp.k14s.io/identity of their own: kapp never deletes them. explain's
// JSON lists them as liveOnly, not deleted, and check does not call them pending deletes; a live
// object kapp created and the manifest no longer declares is deleted (newcomer2 finding 12:
// explain's "deleted" listed a PVC holding data).
func TestControllersObjectsAreNotDeleted(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	desired := withoutHPA(t, fix, dir)
	live, err := os.ReadFile(fix[3])
	if err != nil {
		t.Fatal(err)
	}
	app := regexp.MustCompile(`kapp\.k14s\.io/app: "([0-9]+)"`).FindSubmatch(live)
	if app == nil {
		t.Fatalf("%s: no kapp.k14s.io/app label", fix[3])
	}
	made := func(apiVersion, kind, name string) string {
		return "---\napiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n  namespace: hpa-replicas\n" +
			"  uid: 0c4b0b8e-1\n  resourceVersion: \"7\"\n  labels:\n    kapp.k14s.io/app: \"" + string(app[1]) + "\"\n" +
			"  managedFields:\n  - manager: kube-controller-manager\n    operation: Update\n    apiVersion: " + apiVersion +
			"\n    fieldsType: FieldsV1\n    fieldsV1: {\"f:metadata\": {\"f:labels\": {\".\": {}, \"f:kapp.k14s.io/app\": {}}}}\n"
	}
	l := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(l, []byte(string(live)+made("v1", "Endpoints", "web")+made("v1", "PersistentVolumeClaim", "data-db-0")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rebasegen(t, "explain", "-d", desired, "-l", l, "-n", "hpa-replicas", "--output", "json")
	var got struct{ Deleted, LiveOnly []string }
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("explain: exit %d: %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if want := []string{"autoscaling/HorizontalPodAutoscaler hpa-replicas/web"}; !slices.Equal(got.Deleted, want) {
		t.Errorf("deleted %q, want %q", got.Deleted, want)
	}
	if want := []string{"core/Endpoints hpa-replicas/web", "core/PersistentVolumeClaim hpa-replicas/data-db-0"}; !slices.Equal(got.LiveOnly, want) {
		t.Errorf("liveOnly %q, want %q", got.LiveOnly, want)
	}
	r = rebasegen(t, "explain", "-d", desired, "-l", l, "-n", "hpa-replicas")
	for _, line := range []string{"core/Endpoints hpa-replicas/web: live only, not kapp's to delete", "autoscaling/HorizontalPodAutoscaler hpa-replicas/web: live only, the app's: kapp deletes"} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), line) {
			t.Errorf("explain's text lacks %q:\n%s", line, r.stdout)
		}
	}
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "--output-file", rules, "-d", desired, "-l", fix[3], "-n", fix[5]); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	r = rebasegen(t, "check", "--rules", rules, "-d", desired, "-l", l, "-n", "hpa-replicas")
	if n := strings.Count(r.stdout, "pending delete: "); n != 1 || strings.Contains(r.stdout, "pending delete: core/") {
		t.Errorf("check: want the HPA alone as a pending delete, got %d:\n%s%s", n, r.stdout, r.stderr)
	}
}
