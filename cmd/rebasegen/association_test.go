package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression (issue 24 item 8): on a live object whose kapp.k14s.io/association label is not the
// one kapp gives the resource, explain said nothing (kapp's labels are not listed) while generate
// failed verification with a residual diff. Both now give one answer: kapp rewrites the label
// once (adoption), which kapp's engine confirms.
func TestAssociationLabelOneAnswer(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	data, err := os.ReadFile(fix[3])
	if err != nil {
		t.Fatal(err)
	}
	const right = "    kapp.k14s.io/association: v1.f8a78652e09fe07dac20aae918fe9581\n"
	if !strings.Contains(string(data), right) {
		t.Fatal("fixture changed: no association label on the Deployment")
	}
	live := filepath.Join(t.TempDir(), "live.yaml")
	if err := os.WriteFile(live, []byte(strings.Replace(string(data), right, "    kapp.k14s.io/association: v1.00000000000000000000000000000000\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-d", fix[1], "-l", live, "-n", fix[5]}
	const finding = `metadata.labels["kapp.k14s.io/association"]`
	r := rebasegen(t, append([]string{"explain"}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, finding) || !strings.Contains(r.stdout, "adoption 1") {
		t.Errorf("explain: want the association label as an adoption change, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append([]string{"generate", "--output-file", filepath.Join(t.TempDir(), "rules.yml")}, args...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "adoption "+finding) {
		t.Errorf("generate: want exit 0 naming the association label as an adoption change, got %d:\n%s", r.code, r.stderr)
	}
}

// Regression (issue 24, newcomer5's final report): with the namespace renamed, every association
// label kapp wrote differs from the one kapp gives the resource now, the pod template's too (kapp's
// ownership label rules write it there). explain said adoption for the object's label and nothing
// for the template's, while generate's verification with kapp's engine found the template's as a
// residual ghost diff and refused to write. One classification now holds both labels as adoption:
// explain lists each, generate writes the rules naming each as adoption, check passes with them.
func TestAssociationLabelNamespaceRenamed(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	data, err := os.ReadFile(fix[3])
	if err != nil {
		t.Fatal(err)
	}
	// the template holds the association label as the object does (the fixture's capture)
	renamed := strings.ReplaceAll(string(data), "hpa-replicas", "renamed") // everywhere: the capture of the app deployed into another namespace
	if !strings.Contains(string(data), "kapp.k14s.io/association: v1.f8a78652e09fe07dac20aae918fe9581\n") || strings.Count(string(data), "kapp.k14s.io/association: v1.f8a78652e09fe07dac20aae918fe9581") < 2 || renamed == string(data) {
		t.Fatal("fixture changed: no association label on the Deployment and its pod template")
	}
	dir := t.TempDir()
	live := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(live, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-d", fix[1], "-l", live, "-n", "renamed"}
	const (
		object   = `apps/Deployment renamed/web metadata.labels["kapp.k14s.io/association"]`
		template = `apps/Deployment renamed/web spec.template.metadata.labels["kapp.k14s.io/association"]`
	)
	r := rebasegen(t, append([]string{"explain"}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "  spec.template.metadata.labels[\"kapp.k14s.io/association\"]\n      adoption") || !strings.Contains(r.stdout, "adoption 3") {
		t.Errorf("explain: want the template's association label as an adoption change, 3 in all, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	rules := filepath.Join(dir, "rules.yml")
	r = rebasegen(t, append([]string{"generate", "--output-file", rules}, args...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "adoption "+strings.TrimPrefix(object, "apps/Deployment renamed/web ")) ||
		!strings.Contains(r.stderr, "adoption "+strings.TrimPrefix(template, "apps/Deployment renamed/web ")) || strings.Contains(r.stderr, "residual ghost diff") {
		t.Errorf("generate: want exit 0 naming both association labels as adoption changes, no residual ghost diff, got %d:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(rules); err != nil {
		t.Fatalf("generate wrote no rules: %v", err)
	}
	r = rebasegen(t, append([]string{"check", "--rules", rules}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "adoption (kapp changes it once, when it takes the object over): "+template) || !strings.Contains(r.stdout, "3 adoption changes; 0 residual ghost diffs") {
		t.Errorf("check: want exit 0 with both labels as adoption changes, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Regression (issue 24): a live object whose kapp.k14s.io/identity annotation names the namespace
// it was deployed into before a rename (a restore or copy into another namespace rewrites the
// namespace, kapp's labels too here, but leaves the annotation as kapp wrote it). kapp v0.66.0
// lists such an object as one it did not create, keeps the annotation and shows it removed, and
// its update writes the annotation naming the resource (resources/identified_resources_list.go):
// a change kapp makes once. generate refused ("verification failed") with the annotation's
// removal as a residual ghost diff; it is an adoption change, in explain, generate and check.
func TestIdentityAnnotationNamespaceRenamed(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	data, err := os.ReadFile(fix[3])
	if err != nil {
		t.Fatal(err)
	}
	const deployID = "kapp.k14s.io/identity: v1;hpa-replicas/apps/Deployment/web;apps/v1\n"
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if !strings.Contains(l, "kapp.k14s.io/identity: v1;") {
			lines[i] = strings.ReplaceAll(l, "hpa-replicas", "renamed")
		}
	}
	renamed := strings.Join(lines, "")
	if !strings.Contains(renamed, deployID) || !strings.Contains(renamed, "namespace: renamed\n") {
		t.Fatal("fixture changed: no identity annotation naming hpa-replicas on the Deployment")
	}
	dir := t.TempDir()
	live := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(live, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-d", fix[1], "-l", live, "-n", "renamed"}
	const annotation = `metadata.annotations["kapp.k14s.io/identity"]`
	r := rebasegen(t, append([]string{"explain", "--output", "json"}, args...)...)
	var rep struct {
		Resources []struct {
			Kind, Namespace, Name string
			Fields                []struct{ Path, Class, Desired, Live any }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil {
		t.Fatalf("explain: exit %d, %v\n%s", r.code, err, r.stderr)
	}
	found := map[string]bool{}
	for _, res := range rep.Resources {
		for _, f := range res.Fields {
			if f.Path == annotation {
				found[res.Kind] = true
				want := map[string]string{"Deployment": "v1;renamed/apps/Deployment/web;apps/v1", "HorizontalPodAutoscaler": "v1;renamed/autoscaling/HorizontalPodAutoscaler/web;autoscaling/v2"}[res.Kind]
				if f.Class != "adoption" || f.Desired != want || !strings.HasPrefix(f.Live.(string), "v1;hpa-replicas/") {
					t.Errorf("explain: %s %s: class %v, %v -> %v; want adoption, kapp's %s", res.Kind, annotation, f.Class, f.Live, f.Desired, want)
				}
			}
		}
	}
	if !found["Deployment"] || !found["HorizontalPodAutoscaler"] {
		t.Errorf("explain: %s judged on %v, want the Deployment and the HPA:\n%s", annotation, found, r.stdout)
	}
	rules := filepath.Join(dir, "rules.yml")
	r = rebasegen(t, append([]string{"generate", "--output-file", rules}, args...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "adoption "+annotation) || strings.Contains(r.stderr, "residual ghost diff") {
		t.Fatalf("generate: want exit 0 naming the identity annotation as an adoption change, no residual ghost diff, got %d:\n%s", r.code, r.stderr)
	}
	r = rebasegen(t, append([]string{"check", "--rules", rules}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "adoption (kapp changes it once, when it takes the object over): apps/Deployment renamed/web "+annotation) || !strings.Contains(r.stdout, "; 0 residual ghost diffs") {
		t.Errorf("check: want exit 0 with the annotation as an adoption change, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
