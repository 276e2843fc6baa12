package main

import (
	"strings"
	"testing"
)

// Regression (outside probe 6, finding 10): an annotation under kapp's prefix added in Git (the
// manifest declares kapp.k14s.io/change-group; kapp.k14s.io/original and the live object hold
// none) is what this deploy applies: a pending change from Git in every format, counted apart,
// never failing. It was hidden as kapp's own metadata, and kapp's engine then made it a residual
// ghost diff (exit 3). With the image bumped too, and a label under kapp's prefix kapp's engine
// sees as an update, the residual's evidence said "kapp still still reports".
func TestKappAnnotationAddedInGitIsPending(t *testing.T) {
	const (
		web     = "apps/Deployment hpa-replicas/web "
		path    = `metadata.annotations["kapp.k14s.io/change-group"]`
		pending = "pending change from Git (kapp applies it on deploy): " + web + path
	)
	g := changedInGit(t, func(m string) string {
		return strings.Replace(m, "  name: web\n", "  name: web\n  annotations:\n    kapp.k14s.io/change-group: app\n", 1)
	})
	for _, tc := range []struct {
		flags []string
		want  []string
	}{
		{nil, []string{pending + ": a change made in Git", "1 pending change from Git, applied on deploy; 0 residual ghost diffs"}},
		{[]string{"--output", "github"}, []string{"::warning file=" + g.desired + ",line=6::" + pending}}, // "    kapp.k14s.io/change-group: app"
		{[]string{"--output", "json"}, []string{"pending/pending " + web + path}},
	} {
		res := rebasegen(t, g.check(append([]string{"--fail-on-drift"}, tc.flags...)...)...)
		out := res.stdout
		if len(tc.flags) > 0 && tc.flags[1] == "json" {
			out = jsonFindings(t, out)
		}
		ok := res.code == 0 && !strings.Contains(out, "residual ghost diff:") && !strings.Contains(out, "::error")
		for _, w := range tc.want {
			ok = ok && strings.Contains(out, w)
		}
		if !ok {
			t.Errorf("check %v: exit %d, want 0 and %q:\n%s%s", tc.flags, res.code, tc.want, out, res.stderr)
		}
	}
	res := rebasegen(t, append([]string{"explain", "--wide"}, g.inputs...)...)
	if !strings.Contains(res.stdout, path) || !strings.Contains(res.stdout, "pending 1 (changes made in Git") {
		t.Errorf("explain: want %s pending:\n%s", path, res.stdout)
	}

	g = changedFrom(t, g.rules, func(m string) string {
		m = strings.Replace(m, "image: nginx:1.25", "image: nginx:1.27", 1)
		return strings.Replace(m, "  labels:\n    app.kubernetes.io/name: web\n", "  labels:\n    app.kubernetes.io/name: web\n    kapp.k14s.io/mine: x\n", 1)
	})
	for _, format := range []string{"text", "json", "github"} {
		res := rebasegen(t, g.check("--output", format)...)
		if res.code != 3 || strings.Contains(res.stdout, "still still") || !strings.Contains(res.stdout, "residual") {
			t.Errorf("check --output %s: exit %d, want 3 and a residual ghost diff saying \"still\" once:\n%s", format, res.code, res.stdout)
		}
	}
}
