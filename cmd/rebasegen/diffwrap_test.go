package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
)

// TestCheckOnATerminalKeepsDiffLinesWhole (newcomer13 N13-5): on a terminal check wrapped a stale
// file's unified diff and kapp's diff excerpt under a residual at the terminal's width, so the
// tail of an added line began with spaces, a context line of the diff. Every diff line is written
// whole at any width; the prose around them is still wrapped.
func TestCheckOnATerminalKeepsDiffLinesWhole(t *testing.T) {
	added := "+          - apiVersionKindMatcher: {apiVersion: storage.k8s.io/v1, kind: StorageClass}"
	context := "           - apiVersionKindMatcher: {apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicy}"
	kapp := `  4     -   annotations: {"storageclass.kubernetes.io/is-default-class": "true", "team": "payments"}`
	stale := "--- rules.yml (committed)\n+++ rules.yml (regenerated)\n@@ -20,2 +20,3 @@\n" + context + "\n" + added + "\n"
	long := strings.Repeat("words to wrap ", 8)
	r := verdict.Report{Summary: "check: " + long, Findings: []verdict.Finding{
		{Kind: verdict.KindResidual, Resource: pair.Identity{Group: "storage.k8s.io", Kind: "StorageClass", Name: "mq-fast"}, Evidence: "kapp still reports update under the last-applied base: " + long + "\n  ...\n" + kapp + "\n"},
		{Kind: verdict.KindStale, File: "rules.yml", Line: 20, Inputs: []string{long}, Diff: stale},
	}}
	var piped bytes.Buffer
	if err := verdict.Write(&piped, format.Text, r, "rules.yml"); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{60, 80} {
		var b bytes.Buffer
		if err := verdict.Write(wrapping{&b, width}, format.Text, r, "rules.yml"); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		for _, l := range []string{added, context, kapp} {
			if !strings.Contains("\n"+b.String(), "\n"+l+"\n") {
				t.Errorf("width %d: the diff line %q is not whole:\n%s", width, l, b.String())
			}
		}
		if strings.Count(b.String(), "\n") <= strings.Count(piped.String(), "\n") {
			t.Errorf("width %d: the prose is not wrapped (%d lines):\n%s", width, len(lines), b.String())
		}
	}
}
