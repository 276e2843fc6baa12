package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLintAdvisesRegeneratingAGeneratedFile: a finding on a file rebasegen generated (its header
// and digest) advises the command that regenerates it, never an edit by hand, which the next
// generate undoes (newcomer14 N14-7); the same rules written by hand keep the edit's advice.
func TestLintAdvisesRegeneratingAGeneratedFile(t *testing.T) {
	fixture := filepath.Join("..", "..", "fixtures", "hpa-replicas")
	dir := t.TempDir()
	generated := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, "generate", "-d", filepath.Join(fixture, "desired.yaml"), "-l", filepath.Join(fixture, "live.yaml"), "-n", "hpa-replicas", "--output-file", generated); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	// the pull request drops the autoscaler: the rules' matchers for it match nothing
	deployment, _, _ := strings.Cut(readFile(t, filepath.Join(fixture, "desired.yaml")), "---")
	desired := filepath.Join(dir, "desired.yaml")
	write(t, desired, deployment)
	handWritten := filepath.Join(dir, "hand.yml")
	write(t, handWritten, regexp.MustCompile(`(?m)^#! (Generated|Regenerate|Digest).*\n`).ReplaceAllString(readFile(t, generated), ""))

	// the command the README gives: the header's Regenerate line, which writes the file itself
	regenerate := "rebasegen generated this file: regenerate it (after the deploy, where check says so) rather than edit it by hand, which the next generate undoes: " +
		"rebasegen generate --desired " + filepath.Join(fixture, "desired.yaml") + " --live " + filepath.Join(fixture, "live.yaml") + " --namespace hpa-replicas --output-file " + generated
	for _, c := range []struct {
		rules string
		want  string
	}{
		{generated, regenerate},
		{handWritten, "no desired object is a HorizontalPodAutoscaler: remove the matcher if the package no longer ships one"},
	} {
		r := rebasegen(t, "lint", "--rules", c.rules, "-d", desired, "-n", "hpa-replicas")
		suggestions := regexp.MustCompile(`(?m)^    suggestion: (.*)$`).FindAllStringSubmatch(r.stdout, -1)
		if len(suggestions) == 0 {
			t.Errorf("%s: no suggestion\n%s%s", c.rules, r.stdout, r.stderr)
		}
		for _, s := range suggestions {
			if s[1] != c.want {
				t.Errorf("%s: suggestion\n%s\nwant\n%s", c.rules, s[1], c.want)
			}
		}
	}
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
