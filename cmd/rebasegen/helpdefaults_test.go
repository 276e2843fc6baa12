package main

import (
	"strings"
	"testing"
)

// Each flag's help states one default: a bool flag whose usage said its default in words also got
// urfave/cli's "(default: false)" (newcomer walkthrough 8, N8-11).
func TestHelpStatesOneDefaultPerFlag(t *testing.T) {
	for _, cmd := range []string{"explain", "generate", "check", "lint", "capture"} {
		r := rebasegen(t, cmd, "--help")
		if r.code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", cmd, r.code, r.stderr)
		}
		// a flag's help may wrap: join each flag's lines
		var flags []string
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "--") || len(flags) == 0 {
				flags = append(flags, line)
			} else {
				flags[len(flags)-1] += " " + strings.TrimSpace(line)
			}
		}
		for _, f := range flags {
			if strings.Count(f, "(default: ") > 1 {
				t.Errorf("%s --help: %q states two defaults", cmd, strings.TrimSpace(f))
			}
		}
	}
}
