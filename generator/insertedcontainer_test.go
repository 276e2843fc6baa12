package generator_test

import (
	"path/filepath"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A pull request inserting a container before another (debug between operator and
// metrics-proxy), under rules copying the containers' defaults by index: check failed the gate
// with "residual ghost diffs that the deploy does not end" on metrics-proxy's defaults and told to
// regenerate the rules now (newcomer15 N15-4). kapp applies the manifest's order, and after the
// deploy the copies by index line up: those ghost diffs are this deploy's to end, the committed
// rules are right after it, and the rules regenerated now are not. The oracle is kapp's engine on
// the newcomer's simulated post-deploy pair (testdata/inserted-container/post-live.yaml: the
// manifest as the API server stores it, defaults written by hand): the committed rules keep every
// resource there, the regenerated ones (rules-regen-now.yml, generate from the pull request and
// the capture before the deploy) leave the Deployment updated.
func TestItemInsertedBeforeAnotherEndsItsGhostDiffsOnDeploy(t *testing.T) {
	dir := filepath.Join("testdata", "inserted-container")
	pr, committed := filepath.Join(dir, "pr-add-container.yaml"), filepath.Join(dir, "rules.yml")
	post := filepath.Join(dir, "post-live.yaml")
	for _, ch := range kapptest.BothBases(t, []string{pr}, post, "widgets", []string{committed}) {
		if ch.Op() != ctldiff.ChangeOpKeep && ch.Op() != ctldiff.ChangeOpNoop {
			t.Fatalf("oracle: after the deploy, kapp (against last applied %v) makes %s %s under the committed rules", ch.AgainstLastApplied, ch.Op(), ch.NewResource().Name())
		}
	}
	regeneratedLeaves := false
	for _, ch := range kapptest.BothBases(t, []string{pr}, post, "widgets", []string{filepath.Join(dir, "rules-regen-now.yml")}) {
		regeneratedLeaves = regeneratedLeaves || ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Name() == "widget-operator"
	}
	if !regeneratedLeaves {
		t.Fatal("oracle: after the deploy, the rules regenerated before it keep the Deployment")
	}

	c, err := generator.Check(generator.Inputs{Desired: []string{pr}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "widgets"}, []string{committed})
	if err != nil {
		t.Fatal(err)
	}
	ended := 0
	for _, f := range c.Findings(verdict.Gate{}) {
		if f.Fails {
			t.Errorf("%s %s %s fails the gate: %s", f.Kind, f.Resource, f.Path, f.Evidence)
		}
		if strings.HasPrefix(f.Path, "spec.template.spec.containers[name=metrics-proxy].") {
			ended++
			if f.Kind != verdict.KindPending || !strings.Contains(f.Evidence, "a ghost diff this deploy ends") || !strings.Contains(f.Evidence, "the rules in force are right after the deploy") {
				t.Errorf("%s %s: want a ghost diff this deploy ends, got: %s", f.Kind, f.Path, f.Evidence)
			}
		}
	}
	if ended != 3 || len(c.Stale) != 0 || len(c.Deferred) != 1 || !strings.Contains(c.Deferred[0].File, "rules.yml") {
		t.Errorf("want metrics-proxy's 3 defaults ended by the deploy, rules.yml not stale (to regenerate after the deploy): %d ended, stale %v, deferred %v", ended, c.Stale, c.Deferred)
	}
}
