package generator_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/ytttest"
)

// spinsOnWeb2 is a ytt rebase rule for every Deployment that loops only on the one named web2,
// whatever its values: the budgeted run on the first resource it matches (web) ends.
var spinsOnWeb2 = ytttest.Config(ytttest.DeploymentRule(`def spin():
  x = 0
  if data.values.new["metadata"]["name"] == "web2":
    for i in range(2000000000):
      x = x + 1
    end
  end
  return x
end`, `spec:
  replicas: #@ data.values.existing["spec"]["replicas"] + spin()`))

// TestYTTRuleOverrunOnSecondMatch (probe6 finding 3): a ytt rebase rule looping only on the second
// resource it matches hung check (10 minutes, no output): only the first matched resource and the
// mutated manifests ran within the budget, kapp's engine ran the rule on the others without one.
// Every evaluation kapp's engine makes here runs within the budget (lowered to 2 s), and check
// fails naming the rule and the resource. An abandoned evaluation runs on until its process
// exits, so the check runs in a process of its own (this test binary again).
func TestYTTRuleOverrunOnSecondMatch(t *testing.T) {
	const child = "REBASEGEN_TEST_OVERRUN_RULES"
	if rules := os.Getenv(child); rules != "" {
		defer kappglobal.YTTTimeout(2 * time.Second)()
		dir := filepath.Join("testdata", "ytt-second-match")
		_, err := generator.Check(generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")},
			Namespace: "hpa-replicas"}, []string{rules})
		if err == nil {
			t.Fatal("check passed")
		}
		t.Log(err)
		want := "rendering ytt rebase rule " + rules + ":4, document 1, rebaseRules[0] on apps/Deployment hpa-replicas/web2 with ytt: not done after 2s (a loop that does not end?)"
		if err.Error() != want {
			t.Fatalf("got  %v\nwant %s", err, want)
		}
		return
	}
	rules := writeFile(t, "rule.yml", spinsOnWeb2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestYTTRuleOverrunOnSecondMatch$", "-test.v")
	cmd.Env = append(os.Environ(), child+"="+rules)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if took := time.Since(start); err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%v after %v:\n%s", err, took, out)
	}
}
