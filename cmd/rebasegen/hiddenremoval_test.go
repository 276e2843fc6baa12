package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Regression (newcomer walkthrough 4, item 1): a removal made in Git that a rule hides (a copy
// from the live object puts the container's resources back, so kapp never removes them) failed
// the gate with what kapp does, but not what to change to have the removal applied. The finding
// says it, in every format; a hidden change of a value, which no removal is, does not.
func TestHiddenRemovalSaysHowToApplyIt(t *testing.T) {
	const how = "to apply the removal, take this field out of the rule's paths, or this resource out of its resourceMatchers"
	g := changedInGit(t, func(m string) string {
		return strings.Replace(m, "        resources:\n          requests:\n            cpu: 100m\n            memory: 64Mi\n", "", 1)
	})
	rules := g.file(t, "keep.yml", keepResources)
	for _, format := range []string{"text", "github", "json"} {
		res := rebasegen(t, g.check("--rules", rules, "--output", format)...)
		out := res.stdout
		if format == "json" {
			var j struct{ Hidden []fieldJSON }
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatalf("json: %v:\n%s", err, out)
			}
			out = ""
			for _, h := range j.Hidden {
				out += h.Path + ": " + h.Evidence + "\n"
			}
		}
		if res.code != 3 || !strings.Contains(out, "resources: ") || !strings.Contains(out, how) {
			t.Errorf("--output %s: exit %d, want 3 and the hidden removal saying %q:\n%s", format, res.code, how, out)
		}
	}
	g = changedFrom(t, g.rules, func(m string) string { return strings.Replace(m, "image: nginx:1.25", "image: nginx:1.26", 1) })
	res := rebasegen(t, g.check("--rules", g.file(t, "guess.yml", configOf(guessImageRule)))...)
	if res.code != 3 || !strings.Contains(res.stdout, "hidden: ") || strings.Contains(res.stdout, "to apply the removal") {
		t.Errorf("a hidden image bump: exit %d, want 3, hidden, and no removal's advice:\n%s", res.code, res.stdout)
	}
}
