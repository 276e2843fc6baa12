package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/internal/escape"
)

// Usage errors are one or two lines on stderr: what is wrong, with the closest flag or command
// when there is one, and where the help is. urfave/cli's own handling prints the whole help on
// stdout (where `> rules.yml` sends it) and names flags as Go's flag package does (-desired).

// usageError is every command's OnUsageError (a flag urfave/cli could not parse).
func usageError(c *cli.Context, err error, _ bool) error {
	flags := c.Command.Flags
	for _, f := range flagErrors {
		m := f.re.FindStringSubmatch(err.Error())
		if m == nil {
			continue
		}
		msg := f.format(m[1:])
		if f.unknown {
			hint := didYouMean(flagNames(flags), dashed(m[1]))
			if hint == "" {
				hint = longerName(c, m[1])
			}
			msg += hint + otherCommands(c, m[1])
		}
		return usageExit(c, msg)
	}
	return usageExit(c, escape.Text(err.Error())) // it may quote the command line
}

// flagErrors are the errors of Go's flag package (which urfave/cli parses with), their flag
// named as on the command line.
var flagErrors = []struct {
	re      *regexp.Regexp
	format  func(m []string) string
	unknown bool
}{
	{regexp.MustCompile(`^flag provided but not defined: -((?s).*)$`), func(m []string) string { return "unknown flag " + dashed(m[0]) }, true},
	{regexp.MustCompile(`^flag needs an argument: -((?s).*)$`), func(m []string) string { return dashed(m[0]) + " needs a value" }, false},
	{regexp.MustCompile(`^invalid (boolean )?value ("(?s:.*)") for (?:flag )?-([^:]*): (?s:(.*))$`), func(m []string) string {
		why := m[3]
		if m[0] != "" { // strconv.ParseBool's "parse error" says nothing of what it takes
			why = "a switch takes true or false (" + dashed(m[2]) + "=true), or nothing (" + dashed(m[2]) + ")"
		}
		return fmt.Sprintf("invalid value %s for %s: %s", m[1], dashed(m[2]), why)
	}, false},
	{regexp.MustCompile(`^bad flag syntax: ((?s).*)$`), func(m []string) string { return "bad flag syntax: " + escape.Text(m[0]) }, false},
}

// dashed is a flag's name as given on the command line: -n, --namespace (escaped: an unknown
// flag's name is the command line's).
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + escape.Text(name)
	}
	return "--" + escape.Text(name)
}

// usageExit is msg as a usage error (exit status 1) of c's command, with where its help is.
func usageExit(c *cli.Context, msg string) error {
	help := c.App.Name + " --help"
	if c.Command != nil && c.Command.Name != c.App.Name {
		msg = c.Command.Name + ": " + msg
		help = c.App.Name + " " + c.Command.Name + " --help"
	}
	return cli.Exit(msg+"\nRun '"+help+"' for usage.", exitError)
}

// unknownCommand is the error for a command name that is not one.
func unknownCommand(app *cli.App, name string) error {
	var names []string
	for _, cmd := range app.Commands {
		if !cmd.Hidden {
			names = append(names, cmd.Names()...)
		}
	}
	return cli.Exit(fmt.Sprintf("unknown command %q%s\nRun '%s --help' for the commands.", name, didYouMean(names, name), app.Name), exitError)
}

// requiredFlags takes the Required mark off app's command flags and returns them by command:
// urfave/cli's own check prints the whole help on stdout; checkRequired's is one line.
func requiredFlags(app *cli.App) map[string][]cli.Flag {
	out := map[string][]cli.Flag{}
	for _, cmd := range app.Commands {
		for _, f := range cmd.Flags {
			switch f := f.(type) {
			case *cli.StringFlag:
				if f.Required {
					f.Required = false
					out[cmd.Name] = append(out[cmd.Name], f)
				}
			case *cli.StringSliceFlag:
				if f.Required {
					f.Required = false
					out[cmd.Name] = append(out[cmd.Name], f)
				}
			}
		}
	}
	return out
}

// checkRequired is a usage error naming the first of required that c was not given.
func checkRequired(c *cli.Context, required []cli.Flag) error {
	for _, f := range required {
		names := f.Names()
		if !slices.ContainsFunc(names, c.IsSet) {
			var alias string
			if len(names) > 1 {
				alias = " (" + dashed(names[1]) + ")"
			}
			what := ""
			if d, ok := f.(cli.DocGenerationFlag); ok && d.GetUsage() != "" {
				what = ": " + d.GetUsage()
			}
			return usageExit(c, "missing "+dashed(names[0])+alias+what)
		}
	}
	return nil
}

// flagNames are the names of flags, dashed.
func flagNames(flags []cli.Flag) []string {
	var out []string
	for _, f := range flags {
		for _, n := range f.Names() {
			out = append(out, dashed(n))
		}
	}
	return out
}

// otherCommands names the commands that have the flag c's command does not, or "". The flag is
// named: after a suggestion, "(a flag of generate)" read as the suggested flag's, which c's
// command may have too (explain --output-file: explain has --output).
func otherCommands(c *cli.Context, name string) string {
	var has []string
	for _, cmd := range c.App.Commands {
		if cmd.Name != c.Command.Name && slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) }) {
			has = append(has, cmd.Name)
		}
	}
	if len(has) == 0 {
		return ""
	}
	return " (" + dashed(name) + " is a flag of " + strings.Join(has, ", ") + ")"
}

// longerName is ": did you mean X?" for X, a flag of c's command whose name is the name other
// commands give the flag name (one letter, or alike) with more after a dash, or "": -o, every
// other command's --output, is capture's --output-directory (newcomer12 N12-5: kubectl's habit).
func longerName(c *cli.Context, name string) string {
	mine := flagNames(c.Command.Flags)
	for _, cmd := range c.App.Commands {
		for _, f := range cmd.Flags {
			if cmd.Name == c.Command.Name || !slices.Contains(f.Names(), name) {
				continue
			}
			for _, other := range f.Names() {
				for _, m := range mine {
					if strings.HasPrefix(m, dashed(other)+"-") {
						return ": did you mean " + m + "?"
					}
				}
			}
		}
	}
	return ""
}

// didYouMean is ": did you mean X?" for the candidate closest to given (closest), or "" when none
// is close.
func didYouMean(candidates []string, given string) string {
	if best := closest(candidates, given); best != "" {
		return ": did you mean " + best + "?"
	}
	return ""
}

// closest is the candidate closest to given, or "" when none is close.
// Closest is by edit distance counting a swap of two neighbouring letters as one edit (--valuse is
// one from --values, as from --value: of equals, the one as long as what was given, as a swap
// is, then the first in candidates' order); close is within a third of the length (so none for a
// one- or two-letter name, one letter from every other). Failing that, a flag's name given with
// more around it (--live-file, --rules-file: the longest such name of three letters or more),
// else the first candidate starting with what was given (--pack). urfave/cli's own hook
// (cli.SuggestFlag, Jaro-Winkler) suggests the nearest name however far, so it is not used.
func closest(candidates []string, given string) string {
	name := strings.TrimLeft(given, "-")
	best, bestDist := "", -1
	lenDiff := func(c string) int { return max(len(c)-len(given), len(given)-len(c)) }
	for _, c := range candidates {
		if d := editDistance(given, c); bestDist < 0 || d < bestDist || d == bestDist && lenDiff(c) < lenDiff(best) {
			best, bestDist = c, d
		}
	}
	if bestDist > len(name)/3 {
		best = ""
		for _, c := range candidates {
			if n := strings.TrimLeft(c, "-"); len(n) >= 3 && strings.Contains(name, n) && len(c) > len(best) {
				best = c
			}
		}
		for _, c := range candidates {
			if best == "" && len(name) >= 2 && strings.HasPrefix(c, given) {
				best = c
			}
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b (bytes): Levenshtein's,
// with a swap of two neighbouring bytes one edit (Damerau's, each substring edited once).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
