package yttrender

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The rule child evaluates a ytt rebase rule as kapp's yttresmod does (the same output file), and
// one over its memory budget fails with MemoryExceeded, the next evaluation in a new child.
func TestEvalRuleInChild(t *testing.T) {
	if !RulesInChild() {
		t.Skip("no memory-bounded child on this OS or under the race detector")
	}
	resource := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n")
	values := []byte("existing:\n  data:\n    k: live\nnew: null\n")
	copyLive := `#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
data:
  k: #@ data.values.existing.data.k
`
	bomb := "#@ s = \"x\" * 400000000\n"
	// Each bomb kills its child, so each round starts a new one: with the data segment bounded
	// alone, about one child in ten here let the bomb's 400 MB through (the round fails with
	// <nil>), seldom all 16 of them.
	for round := range 16 {
		out, err := EvalRuleInChild(copyLive, resource, values, 256<<20)
		if err != nil || !strings.Contains(string(out), "k: live") {
			t.Fatalf("round %d: out %q, err %v", round, out, err)
		}
		_, err = EvalRuleInChild(bomb, resource, values, 256<<20)
		if m := (*MemoryExceeded)(nil); !errors.As(err, &m) || m.Memory != 256<<20 {
			t.Fatalf("round %d: over budget: %v", round, err)
		}
	}
	if out, err := EvalRuleInChild(copyLive, resource, values, 256<<20); err != nil || !strings.Contains(string(out), "k: live") {
		t.Fatalf("after: out %q, err %v", out, err)
	}
}

// TestEvalRebaseRuleOneProcess (issue 23/28, CI time): the check's own evaluations of a ytt rule
// (EvalRebaseRule: once per rule, then once per changed manifest of the mutation check) run in the
// one rule child kapp's engine's evaluations run in. Each started a process of its own: a check of
// fixtures/services with its generated rules started 37 of them (18 s wall for 3.5 s of CPU).
func TestEvalRebaseRuleOneProcess(t *testing.T) {
	if !RulesInChild() {
		t.Skip("no memory-bounded child on this OS or under the race detector")
	}
	resource := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n")
	values := []byte("existing:\n  data:\n    k: live\nnew: null\n")
	rule := "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.all\n---\ndata:\n  k: x\n"
	var pids []int
	for range 3 {
		if err := EvalRebaseRule("r.yml", rule, resource, values); err != nil {
			t.Fatal(err)
		}
		p := rules.Process()
		if p == nil {
			t.Fatal("no rule child runs: the evaluation ran in a process of its own")
		}
		pids = append(pids, p.Pid)
	}
	if pids[0] != pids[1] || pids[1] != pids[2] {
		t.Errorf("rule child processes %v: want one for every evaluation", pids)
	}
}

// evalRuleWithin keeps a package render's budgets: an evaluation over its memory or its time
// fails naming the rule and the limit, and the next one runs in a new child.
func TestEvalRuleWithinBudgets(t *testing.T) {
	if !RulesInChild() {
		t.Skip("no memory-bounded child on this OS or under the race detector")
	}
	resource := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
	limits := renderLimits{timeout: 2 * time.Second, memory: 256 << 20}
	for _, c := range []struct{ overlay, want string }{
		{"#@ s = \"x\" * 400000000\n", "rendering ytt rebase rule r.yml with ytt: it needs more than 256 MiB of memory"},
		{"#@ for i in range(2000000000):\n#@ end\n", "rendering ytt rebase rule r.yml with ytt: not done after 2s (a loop that does not end?)"},
		{"#@ fail(\"no\")\n", "rendering ytt rebase rule r.yml with ytt: "},
	} {
		err := evalRuleWithin("ytt rebase rule r.yml", ruleRequest{Overlay: c.overlay, Resource: resource, Values: []byte("new: null\n")}, limits)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || OverBudget(err) != !strings.HasSuffix(c.want, ": ") {
			t.Errorf("%q: got %v, want %q", c.overlay, err, c.want)
		}
	}
	if err := evalRuleWithin("ytt rebase rule r.yml", ruleRequest{Overlay: "---\n", Resource: resource, Values: []byte("new: null\n")}, limits); err != nil {
		t.Errorf("after: %v", err)
	}
}
