package main

import (
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
