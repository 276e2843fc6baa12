package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWordingNewcomer6: the messages newcomer walkthrough 6 found misleading.
//   - N6-4: with a wrong -n nothing pairs, so the app's kapp.k14s.io/app is unknown: the live
//     objects kapp deployed (identity and app label on each) were explained as a controller's.
//   - N6-5: a manifest declaring the namespace it moves an object to got "did you mean -n
//     services?", which cannot pair it (-n fills in only a namespace left out), even with -n
//     services given; it is named as the move it is.
//   - N6-11: -n's help said it defaults to "default" when the live counterparts are in several
//     namespaces; that is an error naming them.
func TestWordingNewcomer6(t *testing.T) {
	fix := scenario(t, "services")
	wrong := append([]string(nil), fix...)
	wrong[5] = "prod"
	r := rebasegen(t, append([]string{"explain"}, wrong...)...)
	if !strings.Contains(r.stderr, "did you mean -n services?") || strings.Contains(r.stdout, "a controller's") ||
		!strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "core/Service services/web-lb: live only, not compared: no desired object pairs, so the app's kapp.k14s.io/app is not known") {
		t.Errorf("N6-4: explain -n prod: stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}

	base, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(base), "  name: web-lb\n", "  name: web-lb\n  namespace: web\n", 1)
	if moved == string(base) {
		t.Fatal("fixtures/services no longer names web-lb as the test expects")
	}
	desired := filepath.Join(t.TempDir(), "desired.yaml")
	if err := os.WriteFile(desired, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	in := append([]string(nil), fix...)
	in[1] = desired
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	r = rebasegen(t, append([]string{"check", "--rules", rules}, in...)...)
	out := strings.Join(strings.Fields(r.stdout+r.stderr), " ")
	if r.code != exitPending || strings.Contains(out, "did you mean -n") ||
		!strings.Contains(out, "pending create, not compared: core/Service web/web-lb: no live counterpart: kapp would create it, nothing was compared; the manifest moves it to namespace web from services, where the live objects hold it") ||
		!strings.Contains(out, "pending delete: core/Service services/web-lb") {
		t.Errorf("N6-5: check of the move: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	for _, cmd := range []string{"explain", "generate", "check", "lint"} {
		help := strings.Join(strings.Fields(rebasegen(t, cmd, "--help").stdout), " ")
		if !strings.Contains(help, "an error naming the namespaces when they are in several; default when none is live") || strings.Contains(help, "else default") {
			t.Errorf("N6-11: %s --help on -n:\n%s", cmd, help)
		}
	}
}

// TestStrayLiveFileAfterDesired: a live file after -d with -l forgotten is named as the live
// objects it holds; the glob hint (a second -d) failed on the missing --live (newcomer walkthrough
// 6, N6-9). A stray file of manifests keeps the glob hint.
func TestStrayLiveFileAfterDesired(t *testing.T) {
	fix := scenario(t, "services")
	desired, live := fix[1], fix[3]
	r := rebasegen(t, "explain", "-d", desired, live)
	want := "rebasegen: explain: unexpected argument \"" + live + "\": it takes no arguments, only flags\nhint: did you mean -l " + live + "? It holds objects read from the cluster"
	if r.code != exitError || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
	if r := rebasegen(t, "explain", "-d", desired, desired); r.code != exitError || !strings.Contains(r.stderr, "hint: -d takes one value: repeat it for each") {
		t.Errorf("a stray manifest: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
