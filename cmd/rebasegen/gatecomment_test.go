package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A copy rule gated on a map the manifest declares says why the gate is there, with the example
// of the map it gates on: a probe's handler only for a probe, a volume's source only for a
// volume, none for another map (newcomer7 N7-9 a: the probe example on a hostPath volume and a
// StatefulSet's claim template spec).
func TestGateCommentsFitTheirMap(t *testing.T) {
	gate := regexp.MustCompile(`#!   only where the manifest has (\S+): kapp's copy would make it where the manifest lacks it(.*)`)
	seen := map[string]bool{}
	for _, fixture := range []string{"daemonset", "hpa-statefulset", "package-app"} {
		out := filepath.Join(t.TempDir(), "rules.yml")
		if r := rebasegen(t, append([]string{"generate", "--output-file", out}, scenario(t, fixture)...)...); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", fixture, r.code, r.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range gate.FindAllStringSubmatch(string(data), -1) {
			at, why := m[1], m[2]
			probe, volume := regexp.MustCompile(`Probe\.[^.]+$`).MatchString(at), regexp.MustCompile(`volumes\[\*\]\.[^.]+$`).MatchString(at)
			if strings.Contains(why, "probe") != probe || strings.Contains(why, "volume") != volume {
				t.Errorf("%s: gate on %s explained as%q", fixture, at, why)
			}
			seen[map[bool]string{true: "volume"}[volume]+map[bool]string{true: "probe"}[probe]] = true
		}
	}
	if !seen["volume"] || !seen[""] {
		t.Errorf("the fixtures no longer hold a gate on a volume's source and one on another map: %v", seen)
	}
}
