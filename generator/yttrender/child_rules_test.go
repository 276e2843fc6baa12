package yttrender

import (
	"errors"
	"strings"
	"testing"
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
	out, err := EvalRuleInChild(copyLive, resource, values, 256<<20)
	if err != nil || !strings.Contains(string(out), "k: live") {
		t.Fatalf("out %q, err %v", out, err)
	}
	bomb := "#@ s = \"x\" * 400000000\n"
	_, err = EvalRuleInChild(bomb, resource, values, 256<<20)
	if m := (*MemoryExceeded)(nil); !errors.As(err, &m) || m.Memory != 256<<20 {
		t.Fatalf("over budget: %v", err)
	}
	if out, err := EvalRuleInChild(copyLive, resource, values, 256<<20); err != nil || !strings.Contains(string(out), "k: live") {
		t.Fatalf("after: out %q, err %v", out, err)
	}
}
