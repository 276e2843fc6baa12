package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/rulefiles"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// maxArgs are the positional arguments a command takes; every other command takes none.
var maxArgs = map[string]int{"completion": 1}

// strayArgument refuses positional arguments a command does not take: every flag takes one value,
// so the second file of `--rules *.yml` (a shell glob) arrives as an argument, and the flag
// parser stops there, leaving every later flag unread too. args is the command line, for the
// flag the argument follows. The hint follows what the stray file holds: a forgotten --rules, -d,
// -l or --output-file before it is more common than a glob, whose hint (repeat the flag before
// it) would then propose a command that fails (newcomer walkthroughs 6 N6-9, 7 N7-7).
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
	flag, value := "", ""
	if i := len(args) - len(rest) + maxArgs[c.Command.Name]; i >= 2 && i < len(args) {
		flag, value = args[i-2], args[i-1]
		if name, v, ok := strings.Cut(value, "="); ok && strings.HasPrefix(name, "-") {
			flag, value = name, v
		}
	}
	if _, err := os.Stat(value + " " + stray); flag != "" && err == nil {
		// the hints quote the command line: escaped, as every input string is (df3310c)
		flag := escape.Text(flag)
		return fmt.Errorf("%s\nhint: quote a value that holds spaces (%s %s); see rebasegen %s --help", msg, flag, escape.Text(emit.ShellQuote(value+" "+stray)), c.Command.Name)
	}
	shown := escape.Text(stray)
	switch meant, why := meantFlag(c, stray); {
	case meant == "" && why != "":
		return fmt.Errorf("%s\nhint: %s %s", msg, shown, why)
	case meant != "" && !names(c.Command, flag, meant):
		if !c.IsSet(meant) {
			why += ", and --" + meant + " is missing"
		}
		return fmt.Errorf("%s\nhint: did you mean %s %s? %s", msg, short(meant), shown, why)
	}
	if flag != "" && repeatable(c.Command, flag) {
		flag, value := escape.Text(flag), escape.Text(value)
		return fmt.Errorf("%s\nhint: %s takes one value: repeat it for each (%s %s %s %s), as for the files of a shell glob", msg, flag, flag, value, flag, shown)
	}
	if _, err := os.Stat(stray); err == nil {
		return fmt.Errorf("%s\nhint: give %s with the flag it is for; see rebasegen %s --help", msg, shown, c.Command.Name)
	}
	return fmt.Errorf("%s\nhint: quote a value that holds spaces; see rebasegen %s --help", msg, c.Command.Name)
}

// meantFlag is the flag of c's command a stray file's content is for, and why: a directory
// rebasegen capture wrote or objects read from the cluster (--live), kapp Configs or a rules Secret (--rules; a file rebasegen generate wrote is
// --output-file for generate), manifests (--desired); "" when it is none of them, or the command has no such flag
// (why then says so of Configs).
func meantFlag(c *cli.Context, path string) (flag, why string) {
	has := func(name string) bool {
		return slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) })
	}
	if load.IsCaptureDir(path) && has("live") {
		return "live", "It is " + load.CaptureDirIs
	}
	if load.TotalSize(path) != nil {
		return "", ""
	}
	r := load.NewReader(nil)
	data, err := r.ReadFile(path)
	if err != nil {
		return "", ""
	}
	docs, err := load.Docs([]string{path}, r)
	if err != nil || len(docs) == 0 {
		return "", ""
	}
	held := "kapp Configs"
	rules := slices.ContainsFunc(docs, func(d load.Doc) bool {
		if load.IsKappConfig(d.APIVersion, d.Kind) {
			return true
		}
		o, err := d.Object()
		if err == nil && rulefiles.IsRulesSecret(o) {
			held = "a rules Secret (" + lint.SecretKey + ")"
			return true
		}
		return err == nil && d.Kind == "ConfigMap" && load.IsLabelledConfig(o)
	})
	switch {
	case rules && load.IsGenerated(data) && has("output-file"):
		return "output-file", "It is a file rebasegen generate wrote"
	case rules && has("rules"):
		return "rules", "It holds " + held
	case rules:
		return "", "holds " + held + ", which " + c.Command.Name + " does not read: check and lint judge them (--rules)"
	case slices.ContainsFunc(docs, func(d load.Doc) bool { return d.ManagedFields || d.FromServer }) && has("live"):
		return "live", "It holds objects read from the cluster (metadata.uid, resourceVersion or managedFields)"
	case has("desired"):
		return "desired", "It holds manifests (no metadata.uid, resourceVersion or managedFields)"
	}
	return "", ""
}

// names says whether arg (-d, --desired, -desired) names cmd's flag name.
func names(cmd *cli.Command, arg, name string) bool {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return strings.HasPrefix(arg, "-") && slices.Contains(f.Names(), strings.TrimLeft(arg, "-"))
		}
	}
	return false
}

// short is how the hints write a flag: as the README's examples do.
func short(name string) string {
	switch name {
	case "desired":
		return "-d"
	case "live":
		return "-l"
	}
	return "--" + name
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
