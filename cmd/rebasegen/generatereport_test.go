package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
)

// generate's verdict holding a finding of every kind, rendered in every format --report takes,
// shows each kind under its label (text, github) or its JSON key, as check's does (issue 28:
// generate had no JSON or GitHub output).
func TestGenerateReportsEveryKindInEveryFormat(t *testing.T) {
	g := &generator.Generated{Set: &pair.Set{VersionWarning: "no defaults data"}, Verification: verdict.Verification{Verdict: everyKindVerdict()}}
	r := generateReport(g, verdict.Gate{}, "1 rule; summary")
	for _, of := range format.Report() {
		var out strings.Builder
		if err := verdict.Write(&out, of, r, "rules.yml"); err != nil {
			t.Fatalf("%s: %v", of, err)
		}
		got := out.String()
		showsEveryKind(t, of, got)
		if of == format.GitHub && !strings.Contains(got, "::notice::generate: 1 rule; summary\n") {
			t.Errorf("github: no summary notice:\n%s", got)
		}
	}
	// generate fails on what it exits 3 for (another app's object: the deploy fails whatever the
	// rules; a rule in force not judged: Verdict.OK); a pending create, delete or immutable
	// change is check's
	for _, f := range r.Findings {
		want := f.Kind == verdict.KindResidual || f.Kind == verdict.KindHidden || f.Kind == verdict.KindUnknown || f.Kind == verdict.KindStale ||
			f.Kind == verdict.KindOwnership || f.Kind == verdict.KindRuleUnjudged
		if f.Fails != want {
			t.Errorf("%s: fails %v, want %v", f.Kind, f.Fails, want)
		}
	}
}

// generate --report json and check --output json on the rules generate wrote come to the same
// findings (one renderer, one verdict), for both targets; --report github annotates the file
// written. json and github without --output-file are a usage error: the rules go to stdout.
func TestGenerateReportAgreesWithCheck(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []string
		target []string
	}{
		{"human-drift", scenario(t, "human-drift"), nil},
		{"adoption-view", scenario(t, "adoption-view"), nil},
		{"argo-cabundle", scenario(t, "argocd/argo-cabundle"), []string{"--target", "argocd"}},
		{"package-app argocd-cm", scenario(t, "package-app"), []string{"--target", "argocd", "--output", "argocd-cm", "--force"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rules := filepath.Join(t.TempDir(), "rules.yml")
			gen := append(append([]string{"generate", "--output-file", rules, "--report", "json"}, c.args...), c.target...)
			g := rebasegen(t, gen...)
			if g.code != 0 && g.code != 3 {
				t.Fatalf("generate: exit %d: %s", g.code, g.stderr)
			}
			check := append([]string{"check", "--rules", rules, "-o", "json"}, c.args...)
			if len(c.target) > 0 {
				check = append(check, "--target", "argocd")
			}
			ch := rebasegen(t, check...)
			if ch.code == 1 {
				t.Fatalf("check: exit 1: %s", ch.stderr)
			}
			var gj, cj map[string]any
			if err := json.Unmarshal([]byte(g.stdout), &gj); err != nil {
				t.Fatalf("generate --report json: %v\n%s", err, g.stdout)
			}
			if err := json.Unmarshal([]byte(ch.stdout), &cj); err != nil {
				t.Fatalf("check -o json: %v\n%s", err, ch.stdout)
			}
			for _, key := range []string{"version", "target", "ghost", "inSync", "mutation", "masked", "paired", "kept", "residual", "unknown", "hidden", "drift", "pending", "adoption", "serverVersion", "pendingCreates"} {
				if !reflect.DeepEqual(gj[key], cj[key]) {
					t.Errorf("%s: generate %v, check %v", key, gj[key], cj[key])
				}
			}
			gh := rebasegen(t, append(append([]string{"generate", "--output-file", rules, "--report", "github"}, c.args...), c.target...)...)
			if gh.code != g.code || !strings.Contains(gh.stdout, "::notice::") {
				t.Errorf("--report github: exit %d (json: %d):\n%s%s", gh.code, g.code, gh.stdout, gh.stderr)
			}
			// on the rules written, or (drift, pending changes) where the desired value was
			// written, as check -o github locates them
			var desired []string
			for i, a := range c.args {
				if (a == "-d" || a == "--desired") && i+1 < len(c.args) {
					desired = append(desired, "file="+c.args[i+1]+",")
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(gh.stdout), "\n") {
				if !strings.HasPrefix(l, "::notice::") && !strings.HasPrefix(l, "::warning::") && !strings.Contains(l, "file="+rules+",") &&
					!slices.ContainsFunc(desired, func(d string) bool { return strings.HasPrefix(l, "::warning "+d) }) {
					t.Errorf("--report github: an annotation neither on the rules written (%s) nor on a desired file: %s", rules, l)
				}
			}
		})
	}
	r := rebasegen(t, append([]string{"generate", "--report", "github"}, scenario(t, "hpa-replicas")...)...)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "--output-file") {
		t.Errorf("--report github to stdout: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
