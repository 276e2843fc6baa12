package main

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
)

func lintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check kapp Config rebase rules: keys kapp ignores, matchers that never match, rules that panic, repeat kapp's defaults or hide real changes",
		ArgsUsage: " ",
		Description: helpText("rebasegen lint -r rebase-rules.yml -d desired.yaml",
			"0 no errors (warnings allowed)", "1 usage or input error", "4 lint errors"),
		Flags: slices.Concat([]cli.Flag{
			&cli.StringSliceFlag{Name: "rules", Aliases: []string{"r"}, Required: true, Usage: "kapp Configs or ConfigMaps labelled kapp.k14s.io/config: file, directory or - (repeatable)"},
			&cli.StringSliceFlag{Name: "desired", Aliases: []string{"d"}, Usage: "desired objects the rules are for: every matcher must match one (repeatable)"},
			&cli.StringSliceFlag{Name: "live", Aliases: []string{"l"}, Usage: "live objects with managedFields: broad rules get the narrower paths rebasegen generate would write (repeatable)"},
		}, classifyFlags(), []cli.Flag{
			&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: namespaceUsage},
			serverVersionFlag(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: string(format.Text), Usage: format.Words(format.Report()) + " (GitHub Actions annotations)"},
		}, packageFlags()),
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return fmt.Errorf("unexpected argument %q: pass Configs with --rules", c.Args().First())
			}
			f, err := format.Parse(c.String("output"), format.Report())
			if err != nil {
				return err
			}
			findings, notes, err := generator.Lint(inputs(c), c.StringSlice("rules"))
			if err != nil {
				return err
			}
			noteNamespace(c, notes.InferredNamespace, notes.NamespaceUnused)
			if notes.InstallNamespace != "" {
				fmt.Fprintf(c.App.ErrWriter, "note: namespace %s taken for the desired objects without one from the rules Secret's (the PackageInstall's, into which kapp-controller installs them): -n to choose\n", escape.Text(notes.InstallNamespace))
			}
			if notes.NamespaceDefaulted {
				// the rules name the namespace they were generated for: judged in another, each
				// name "matches none of the desired objects" (newcomer11 N11-6)
				fmt.Fprintln(c.App.ErrWriter, "note: namespace default assumed for the desired objects without one (no -n, and no live object to infer it from): -n to choose the namespace the package is installed into")
			}
			noteVersion(c, notes.VersionWarning)
			out := c.App.Writer
			if f == format.Text {
				out = wrapTo(out)
			}
			if err := lint.Write(out, findings, f); err != nil {
				return err
			}
			// the summary once: after the findings; in github, as a notice ending them, as check
			// ends its annotations; in json on stderr, to keep stdout one document
			switch f {
			case format.Text:
				fmt.Fprintln(out, lint.Summary(findings))
			case format.GitHub:
				fmt.Fprintln(out, "::notice::"+escape.GitHubData(lint.Summary(findings)))
			default:
				fmt.Fprintln(c.App.ErrWriter, lint.Summary(findings))
			}
			if errs, _ := lint.Count(findings); errs > 0 {
				return cli.Exit("", exitLint)
			}
			return nil
		},
	}
}
