// Command rebasegen finds the ghost diffs kapp reports between desired and live objects and
// writes the narrowest kapp rebase rules that remove them. Wiring only: the work is in generator/.
package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

// Exit codes, as documented in the README.
const (
	exitError   = 1 // usage or input error
	exitPending = 3 // ghost diffs remain or generated rules are stale, like kapp --diff-exit-status
	exitLint    = 4 // lint errors (and nothing worse)
)

func main() {
	argocd.JQChild()        // an Argo CD jq child of this process (started by argocd.Diff) ends here
	yttrender.RenderChild() // a package render child of this process (started by load) ends here
	os.Exit(run(os.Args))
}

func run(args []string) int {
	start, quiet := time.Now(), false // timing summary on stderr (timing.go), silenced by --quiet
	unknown := ""                     // a command name that is not one (urfave/cli exits 3 for it: "ghost diffs remain")
	var stray error                   // a positional argument: named rather than a required flag it hid
	github := false                   // -o github: an error is annotated too
	defer func() { timingSummary(os.Stderr, args, start, quiet) }()
	app := &cli.App{
		Flags:  []cli.Flag{quietFlag()},
		Before: func(c *cli.Context) error { quiet = c.Bool("quiet"); return nil },
		// Paths may contain commas: every list flag is repeatable, none is comma-separated.
		DisableSliceFlagSeparator: true,
		Name:                      "rebasegen",
		Usage:                     "explain kapp ghost diffs and generate the narrowest rebase rules that remove them",
		Version:                   version,
		Commands: []*cli.Command{
			explainCommand(),
			generateCommand(),
			checkCommand(),
			captureCommand(),
			lintCommand(),
			versionCommand(),
			completionCommand(),
		},
		EnableBashCompletion: completionRequested(), // the hidden --generate-bash-completion, when the completion scripts call
		Writer:               os.Stdout,
		ErrWriter:            wrapTo(os.Stderr),            // notes, warnings and summaries fit the terminal
		ExitErrHandler:       func(*cli.Context, error) {}, // run() prints and maps errors itself
		CommandNotFound:      func(_ *cli.Context, name string) { unknown = name },
	}
	cli.VersionPrinter = func(c *cli.Context) { _ = writeVersion(c.App.Writer) }
	cli.HelpPrinter = printHelp
	app.OnUsageError = usageError
	required := requiredFlags(app)
	// --quiet also after the command name, where people put it.
	for _, cmd := range app.Commands {
		cmd.Flags = append(cmd.Flags, quietFlag())
		cmd.OnUsageError = usageError
		cmd.Before = func(c *cli.Context) error {
			quiet = isQuiet(c)
			github = c.String("output") == string(format.GitHub) || c.String("report") == string(format.GitHub)
			if stray = strayArgument(c, args); stray != nil {
				return stray
			}
			if err := checkRequired(c, required[cmd.Name]); err != nil {
				return err
			}
			if err := checkNames(c); err != nil {
				return err
			}
			if err := checkValues(c); err != nil {
				return err
			}
			return checkPaths(c)
		}
	}
	err := app.Run(args)
	if stray != nil {
		err = stray
	}
	if err == nil && unknown != "" {
		err = unknownCommand(app, unknown)
	}
	if err == nil {
		return 0
	}
	if err.Error() != "" {
		// errors name inputs: files, documents, objects
		fmt.Fprintln(wrapTo(os.Stderr), "rebasegen: "+escape.Lines(err.Error()))
		if github {
			fmt.Fprint(os.Stdout, errorAnnotation(err))
		}
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) && ec.ExitCode() != 0 {
		return ec.ExitCode()
	}
	return exitError
}

// errorAnnotation is a GitHub annotation of an input error naming a file of the inputs and a line
// (newcomer15 N15-6: CI showed a red job and the reason only in its log), on that line, the
// field's where known, as the findings of -o github are: in a package, the template's line that
// wrote the field; "" for any other error, which stdout stays empty for (stdin, a package's
// rendering where no template's line is known, a usage error).
func errorAnnotation(err error) string {
	le := (*load.Error)(nil)
	if !errors.As(err, &le) || le.Source.Doc == 0 || le.Source.File == "-" {
		return ""
	}
	if _, rendered := yttrender.RenderedFrom(le.Source.File); rendered {
		if le.Written.File == "" {
			return ""
		}
		return lint.GitHubCommand("error", le.Written.File, le.Written.Line, "rebasegen: "+escape.Lines(err.Error()))
	}
	return lint.GitHubCommand("error", le.Source.File, cmp.Or(le.Line, le.Source.Line), "rebasegen: "+escape.Lines(err.Error()))
}
