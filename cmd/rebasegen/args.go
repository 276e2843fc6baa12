package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// maxArgs are the positional arguments a command takes; every other command takes none.
var maxArgs = map[string]int{"completion": 1}

// strayArgument refuses positional arguments a command does not take: every flag takes one value,
// so the second file of `--rules *.yml` (a shell glob) arrives as an argument, and the flag
// parser stops there, leaving every later flag unread too. args is the command line, for the
// flag the argument follows.
func strayArgument(c *cli.Context, args []string) error {
	rest := c.Args().Slice()
	if len(rest) <= maxArgs[c.Command.Name] {
		return nil
	}
	stray := rest[maxArgs[c.Command.Name]]
	if c.Command.Name == "completion" {
		return fmt.Errorf("completion: unexpected argument %q: it takes one, the shell", stray)
	}
	msg := fmt.Sprintf("%s: unexpected argument %q: it takes no arguments, only flags", c.Command.Name, stray)
	if i := len(args) - len(rest) + maxArgs[c.Command.Name]; i >= 2 && i < len(args) {
		flag, value := args[i-2], args[i-1]
		if name, v, ok := strings.Cut(value, "="); ok && strings.HasPrefix(name, "-") {
			flag, value = name, v
		}
		if (flag == "-d" || flag == "--desired" || flag == "-desired") && !c.IsSet("live") && readFromServer(stray) {
			// -l forgotten before the live file: a second -d fails on the missing --live
			// (newcomer walkthrough 6, N6-9)
			return fmt.Errorf("%s\nhint: did you mean -l %s? It holds objects read from the cluster (metadata.uid, resourceVersion or managedFields), and --live (-l) is missing", msg, escape.Text(stray))
		}
		if repeatable(c.Command, flag) {
			flag, value, stray := escape.Text(flag), escape.Text(value), escape.Text(stray)
			return fmt.Errorf("%s\nhint: %s takes one value: repeat it for each (%s %s %s %s), as for the files of a shell glob", msg, flag, flag, value, flag, stray)
		}
	}
	return fmt.Errorf("%s\nhint: quote a value that holds spaces; see rebasegen %s --help", msg, c.Command.Name)
}

// repeatable says whether arg names one of cmd's list flags.
func repeatable(cmd *cli.Command, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	for _, f := range cmd.Flags {
		if _, ok := f.(*cli.StringSliceFlag); ok && strings.HasPrefix(arg, "-") && slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// completionEnv is set by the completion scripts when they ask rebasegen for candidates: only
// then is a last argument --generate-bash-completion urfave/cli's completion request. Otherwise
// it would make any command print flags and exit 0 without running (check passing unchecked),
// also as a flag's value (--rules --generate-bash-completion).
const completionEnv = "REBASEGEN_COMPLETION"

func completionRequested() bool { return os.Getenv(completionEnv) == "1" }

// readFromServer says whether path is a file holding an object read from the cluster (what only
// the API server writes), as the swapped -d/-l check tells them apart.
func readFromServer(path string) bool {
	if load.TotalSize(path) != nil {
		return false
	}
	docs, err := load.Docs([]string{path}, load.NewReader(nil))
	return err == nil && slices.ContainsFunc(docs, func(d load.Doc) bool { return d.ManagedFields || d.FromServer })
}
