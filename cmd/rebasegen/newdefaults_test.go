package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Regression (issue 24, newcomer17 N17-2): a pending change adding a list item whose server
// defaults the committed rules do not restore says so, and to regenerate the rules after the
// deploy, from a new capture, on its own line in every format: the note came only on stderr,
// in text, as a note on the rules file where regenerating it from the pull request changed it,
// which rules selecting the containers by name never do. The sidecar of the README's example: the
// rules copy every container's imagePullPolicy and terminationMessage* (by index), and no rule
// its resources, which web declares and the API server stores as {} on a container declaring
// none. The generator package's test on the newcomer's real captures judges which fields with
// kapp's engine.
func TestPendingItemSaysItsUncoveredDefaultsInEveryFormat(t *testing.T) {
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d\n%s", r.code, r.stderr)
	}
	m := readFile(t, fix[1])
	sidecar := strings.Replace(m, "            memory: 64Mi\n", "            memory: 64Mi\n      - name: sidecar\n        image: busybox:1.36\n", 1)
	if sidecar == m {
		t.Fatal("the edit changes nothing")
	}
	desired := writeIn(t, dir, "sidecar.yaml", sidecar)
	const (
		path = "spec.template.spec.containers[name=sidecar]"
		note = "the API server's defaulting sets its resources on deploy, which the rules in force do not restore"
		when = "regenerate the rules after the deploy, from a new capture"
	)
	for _, format := range []string{"text", "json", "github"} {
		t.Run(format, func(t *testing.T) {
			r := rebasegen(t, "check", "-d", desired, "-l", fix[3], "-n", fix[5], "--rules", rules, "-o", format)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0:\n%s%s", r.code, r.stdout, r.stderr)
			}
			var evidence string
			if format == "json" {
				var out struct {
					Pending []struct{ Path, Evidence string }
				}
				if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
					t.Fatal(err)
				}
				for _, p := range out.Pending {
					if p.Path == path {
						evidence = p.Evidence
					}
				}
			} else {
				for _, line := range strings.Split(r.stdout, "\n") {
					if strings.Contains(line, "pending change from Git (kapp applies it on deploy): apps/Deployment hpa-replicas/web "+path+":") {
						evidence = line
					}
				}
			}
			if !strings.Contains(evidence, note) || !strings.Contains(evidence, when) {
				t.Errorf("the sidecar's pending change does not say the rules leave its resources, to regenerate after the deploy: %q\n%s", evidence, r.stdout)
			}
		})
	}
}
