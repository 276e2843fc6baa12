package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Regression (newcomer walkthrough 4, item 10): a Service's spec.clusterIP is set by the API
// server, but a manifest declaring one other than kapp's last apply (kapp.k14s.io/original) is
// a change made in Git, not a calculated ghost diff (check called it a residual ghost diff, and
// the regenerated rules ruled it: stale). Changing the primary clusterIP is also the update the
// API server refuses (validateUpgradeDowngradeClusterIPs: "may not change once set"), so it is
// the pending change kapp's deploy fails on, in every format: both where kapp's last apply left
// the field to the server and where it sent the live value itself (a live object derived from
// the captured one, its kapp.k14s.io/original holding the clusterIP).
//
// The fixture's web Service alone (its files' other Services left out): the property needs no
// other, and web-nodeport's generated conditional ytt rule made each of the test's checks start a
// ytt process per mutation probe (the test took 390 s of the package's run under CI's load).
func TestGitChangeToACalculatedFieldIsPending(t *testing.T) {
	fix := scenario(t, "services")
	dir := t.TempDir()
	read := func(path string) string { return readFile(t, path) }
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	webOnly := func(path string) string { // the file's header and its web Service
		var keep []string
		webs := 0
		for _, doc := range strings.Split(read(path), "\n---\n") {
			web := strings.Contains(doc, "\n  name: web\n")
			if web {
				webs++
			}
			if web || !strings.Contains(doc, "kind: ") {
				keep = append(keep, strings.TrimSuffix(doc, "\n"))
			}
		}
		if webs != 1 {
			t.Fatalf("%s: %d web Services, want 1", path, webs)
		}
		return write("web-"+filepath.Base(path), strings.Join(keep, "\n---\n")+"\n")
	}
	fix[1], fix[3] = webOnly(fix[1]), webOnly(fix[3])
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	desired := write("desired.yaml", strings.Replace(read(fix[1]), "  name: web\nspec:\n", "  name: web\nspec:\n  clusterIP: 10.0.0.99\n", 1))
	live := read(fix[3])
	const sentWithout = `"namespace":"services"},"spec":{"ports":[{"name":"http","port":80,"targetPort":8080}]`
	if !strings.Contains(live, sentWithout) || !strings.Contains(live, "clusterIP: 10.0.0.203") {
		t.Fatal("the services fixture's web Service changed: update the test")
	}
	sent := write("live-sent.yaml", strings.Replace(live, sentWithout, `"namespace":"services"},"spec":{"clusterIP":"10.0.0.203","ports":[{"name":"http","port":80,"targetPort":8080}]`, 1))
	const (
		field  = "core/Service services/web spec.clusterIP"
		blocks = "pending change from Git that kapp's deploy fails on (refused by the API server's validation): " + field
		why    = "a Service's primary clusterIP may not change once set"
	)
	// clusterIP: "" asks the server to choose, as leaving it out does: no change made in Git
	empty := write("empty.yaml", strings.Replace(read(fix[1]), "  name: web\nspec:\n", "  name: web\nspec:\n  clusterIP: \"\"\n", 1))
	if res := rebasegen(t, "check", "--rules", rules, "-d", empty, "-l", fix[3], "-n", "services"); strings.Contains(res.stdout, "pending") || strings.Contains(res.stdout, "immutable") {
		t.Errorf("clusterIP \"\": want no pending change:\n%s", res.stdout)
	}
	for name, liveFile := range map[string]string{"left to the server": fix[3], "sent by kapp": sent} {
		for _, tc := range []struct {
			format string
			want   []string
		}{
			{"text", []string{blocks + ": a change made in Git", why, "0 residual ghost diffs, 0 unknown fields, 0 stale generated files"}},
			{"github", []string{"::error file=" + desired + ",line=6::" + blocks, why}}, // "  clusterIP: 10.0.0.99"
			{"json", []string{`"immutable": [`, `"path": "spec.clusterIP"`, `"class": "pending"`, why, `"residual": []`, `"stale": []`}},
		} {
			res := rebasegen(t, "check", "--rules", rules, "-d", desired, "-l", liveFile, "-n", "services", "--output", tc.format)
			ok := res.code == 3 && !strings.Contains(res.stdout, "calculated")
			for _, w := range tc.want {
				ok = ok && strings.Contains(res.stdout, w)
			}
			if !ok {
				t.Errorf("%s, --output %s: exit %d, want 3, %q and no calculated:\n%s%s", name, tc.format, res.code, tc.want, res.stdout, res.stderr)
			}
		}
	}
}
