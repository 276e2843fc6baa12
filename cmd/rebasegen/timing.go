package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// slowRun is how long a run takes before it reports its timing on stderr.
const slowRun = 2 * time.Second

// quietFlag is the global --quiet: no timing summary (and no progress) on stderr.
func quietFlag() cli.Flag {
	return &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print no timing summary and no progress bar on stderr"}
}

// isQuiet reports whether --quiet was given before or after the command name.
func isQuiet(c *cli.Context) bool {
	for _, x := range c.Lineage() {
		if x.Bool("quiet") {
			return true
		}
	}
	return false
}

// timingSummary writes one line about a run that took longer than slowRun, unless --quiet:
// "rebasegen: generate took 4m48s (CPU 8m13s, peak RSS 1200.0 MB, of its largest child process
// 80.2 MB)". Only stderr, so stdout
// (rules, explanations) stays byte-identical.
func timingSummary(w io.Writer, args []string, start time.Time, quiet bool) {
	elapsed := time.Since(start)
	if quiet || elapsed < slowRun {
		return
	}
	cmd := "run"
	for _, a := range args[min(1, len(args)):] {
		if !strings.HasPrefix(a, "-") {
			cmd = a
			break
		}
	}
	line := fmt.Sprintf("rebasegen: %s took %s", cmd, elapsed.Round(10*time.Millisecond))
	if u, ok := usage(); ok {
		line += fmt.Sprintf(" (CPU %s, peak RSS %.1f MB", u.cpu.Round(10*time.Millisecond), float64(u.rss)/1e6)
		if u.childRSS > 0 {
			line += fmt.Sprintf(", of its largest child process %.1f MB", float64(u.childRSS)/1e6)
		}
		line += ")"
	}
	fmt.Fprintln(w, line)
}

// runUsage is what a run used so far: CPU time of the process and its child processes, the
// process's peak resident memory and the largest child process's.
type runUsage struct {
	cpu           time.Duration
	rss, childRSS int64
}
