package yttrender

import (
	"strings"
	"testing"
)

// TestLoadWaitRule: a wait rule's starlark loads as kapp's wait rule evaluation loads it, in the
// rule child and in this process alike: an undefined name (probe20 P20-2's wait-bad.yml) and a
// module without is_done fail, the program kapp's docs show loads.
func TestLoadWaitRule(t *testing.T) {
	cases := []struct {
		name, star, fails string
	}{
		{"undefined name", "def is_done(resource):\n    return {\"done\": True, \"successful\": undefined_name}\nend\n", "undefined: undefined_name"},
		{"no is_done", "def done(resource):\n    return {\"done\": True}\nend\n", "is_done"},
		{"syntax", "def is_done(resource:\n", "want ')'"},
		{"loads", "def is_done(resource):\n    for cond in resource.status.conditions:\n        if cond.type == \"Ready\":\n            return {\"done\": True, \"successful\": cond.status == \"True\", \"message\": cond.message}\n        end\n    end\n    return {\"done\": False, \"message\": \"Not ready\"}\nend\n", ""},
	}
	for _, inChild := range []bool{true, false} {
		prev := childRenders.Load()
		childRenders.Store(inChild && prev)
		for _, c := range cases {
			err := LoadWaitRule("rules.yml:3", c.star)
			switch {
			case c.fails == "" && err != nil:
				t.Errorf("%s (child %v): %v", c.name, inChild, err)
			case c.fails != "" && (err == nil || !strings.Contains(err.Error(), c.fails) || !strings.Contains(err.Error(), "ytt wait rule rules.yml:3") || OverBudget(err)):
				t.Errorf("%s (child %v): want an error naming the rule and %q, got %v", c.name, inChild, c.fails, err)
			}
			if err != nil {
				t.Logf("%s (child %v): %v", c.name, inChild, err)
			}
		}
		childRenders.Store(prev)
	}
}
