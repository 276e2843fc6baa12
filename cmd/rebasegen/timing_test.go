package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTimingSummary(t *testing.T) {
	args := []string{"rebasegen", "--quiet=false", "generate", "-d", "x"}
	var b strings.Builder
	timingSummary(&b, args, time.Now().Add(-3*time.Second), false)
	if got := b.String(); !strings.HasPrefix(got, "rebasegen: generate took 3") || strings.Count(got, "\n") != 1 {
		t.Errorf("slow run: got %q, want one line about generate", got)
	}
	b.Reset()
	timingSummary(&b, args, time.Now().Add(-3*time.Second), true)
	timingSummary(&b, args, time.Now(), false)
	if b.Len() > 0 {
		t.Errorf("--quiet or a fast run must print nothing, got %q", b.String())
	}
}

// --quiet goes before or after the command, and file names may contain commas (no list flag
// splits on them).
func TestQuietAndCommaPaths(t *testing.T) {
	in := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	for i, flag := range []int{1, 3} {
		data, err := os.ReadFile(in[flag])
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, []string{"desired,a.yaml", "live,b.yaml"}[i])
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		in[flag] = p
	}
	plain := rebasegen(t, append([]string{"explain", "--color", "never"}, scenario(t, "hpa-replicas")...)...)
	for _, args := range [][]string{{"--quiet", "explain"}, {"explain", "--quiet"}, {"-q", "explain"}, {"explain", "-q"}} {
		r := rebasegen(t, append(append(args, "--color", "never"), in...)...)
		if r.code != 0 || r.stdout != plain.stdout || strings.Contains(r.stderr, " took ") {
			t.Errorf("%v with commas in paths: exit %d, same output %v, stderr:\n%s", args, r.code, r.stdout == plain.stdout, r.stderr)
		}
	}
}
