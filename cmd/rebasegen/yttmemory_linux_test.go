package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// A ytt rebase rule that allocates only on the second resource it matches (the HPA; the
// budgeted run on the first, the Deployment, passes) was evaluated there by kapp's engine in
// rebasegen's own process, bounded in time only: the probe's rule grew it to 6.1 GB (probe7 D3).
// Every evaluation of a hand-written rule now runs in the memory-bounded rule child (budget
// lowered to 128 MiB here; the rule asks for 2 GB at once, over every budget): check fails with exit 1 naming the
// rule's file, line, document, key and the resource. An evaluation
// over budget fails every later one (as one over its time), so the check runs in a process of its
// own (this test binary again).
func TestCheckYTTRuleOverMemoryOnSecondMatch(t *testing.T) {
	if !yttrender.RulesInChild() {
		t.Skip("no memory-bounded child on this OS or under the race detector")
	}
	const child = "REBASEGEN_TEST_OVER_MEMORY_RULES"
	f := filepath.Join("..", "..", "fixtures", "hpa-replicas")
	if rules := os.Getenv(child); rules != "" {
		defer kappglobal.YTTMemory(128 << 20)()
		r := rebasegen(t, "check", "-d", filepath.Join(f, "desired.yaml"), "-l", filepath.Join(f, "live.yaml"), "-n", "hpa-replicas",
			"--rules", "../../fixtures/lint/hpa-replicas-all-deployments/rules.yml", "--rules", rules)
		want := "rebasegen: rendering ytt rebase rule " + rules + ":4, document 1, rebaseRules[0] on autoscaling/HorizontalPodAutoscaler hpa-replicas/web with ytt: it needs more than 128 MiB of memory"
		if r.code != 1 || !strings.Contains(r.stderr, want) || r.stdout != "" {
			t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and %q", r.code, r.stdout, r.stderr, want)
		}
		return
	}
	rules := filepath.Join(t.TempDir(), "bomb.yml")
	if err := os.WriteFile(rules, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:data", "data")
        #@ if data.values.new["kind"] == "HorizontalPodAutoscaler":
        #@   s = ["x" * 1000000000, "y" * 1000000000]
        #@ end
  resourceMatchers:
  - anyMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
      - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCheckYTTRuleOverMemoryOnSecondMatch$", "-test.v")
	cmd.Env = append(os.Environ(), child+"="+rules)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%v:\n%s", err, out)
	}
}
