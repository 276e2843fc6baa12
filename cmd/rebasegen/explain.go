package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
)

func explainCommand() *cli.Command {
	return &cli.Command{
		Name:  "explain",
		Usage: "classify every field that differs between desired and live objects, with evidence",
		Description: "Each field's row: its path, class, values and evidence. Values read desired -> live: the manifest's value\n" +
			"(what kapp applies), then the live object's; - where the object lacks the field. kapp's diff shows the same\n" +
			"pair as a change, - the live line, + the manifest's. JSON: desired, live and, where Git changed a field a person\n" +
			"changed too, original (what kapp last applied).\n\n" +
			helpText("rebasegen explain -d desired.yaml -l live.yaml -n my-namespace", "0 report written, whatever it found", "1 usage or input error"),
		Flags: append(inputFlags(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: string(format.Text), Usage: format.Words(format.Explain())},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "auto, always or never"},
			// DefaultText: a bool flag's help says "(default: false)" otherwise, beside what the default is
			&cli.BoolFlag{Name: "wide", Usage: "text: one line per field, however wide", DefaultText: "the terminal's width, 80 columns in a file or pipe"},
			&cli.BoolFlag{Name: "group", Usage: "text: each difference of a kind once, with how many resources have it", DefaultText: fmt.Sprintf("above %d resources", explainGroupAbove)},
		),
		Action: func(c *cli.Context) error {
			pal, err := palette(c.String("color"))
			if err != nil {
				return err
			}
			f, err := format.Parse(c.String("output"), format.Explain()) // before the analysis, not after it
			if err != nil {
				return err
			}
			rep, set, err := generator.Explain(inputs(c))
			if err != nil {
				return err
			}
			noteNamespace(c, set.InferredNamespace, set.NamespaceUnused)
			noteVersion(c, set.VersionWarning)
			noteUnmanaged(c, set.Unmanaged, set.Uncaptured, set.Live)
			noteRedacted(c, set.Redacted)
			noteElsewhere(c, len(set.Pairs), verdict.UnpairedOf(set))
			if err := noteOwnership(c, set); err != nil {
				return err
			}
			if err := noteOriginalNull(c, set); err != nil {
				return err
			}
			noteArgoCD(c, argocd.TrackedApps(rep))
			if f == format.JSON {
				return emit.WriteExplainJSON(c.App.Writer, rep)
			}
			width := explainWidth(c.App.Writer, c.Bool("wide"))
			group := c.Bool("group")
			if !c.IsSet("group") && len(rep.Resources) > explainGroupAbove {
				group = true
				fmt.Fprintf(c.App.ErrWriter, "note: %d resources: each difference of a kind shown once (--group=false lists every resource)\n", len(rep.Resources))
			}
			if group {
				return emit.WriteExplainGrouped(c.App.Writer, rep, pal, width)
			}
			return emit.WriteExplainText(c.App.Writer, rep, pal, width)
		},
	}
}

// noteArgoCD tells an Argo CD user that explain speaks kapp: its adoption findings and hints are
// what kapp's first deploy would do, not Argo CD's; the classes are the ones the Argo CD target
// rules from.
func noteArgoCD(c *cli.Context, apps []string) {
	if len(apps) == 0 {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "note: Argo CD tracks the live objects (Application %s): explain says what kapp would do with them (its adoption findings are kapp's); generate --target argocd and check --target argocd judge them for Argo CD\n",
		escape.Text(strings.Join(apps, ", ")))
}

// noteOwnership warns of the live objects labelled as another kapp app's, on which kapp's deploy
// fails before it applies anything: explain's classes say what kapp would change, not that the
// deploy never gets to it.
func noteOwnership(c *cli.Context, set *pair.Set) error {
	conflicts, err := verdict.OwnershipOf(set)
	for _, o := range conflicts {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s: %s: %s\n", verdict.KindOwnership.Label(), escape.Text(o.Resource.String()), escape.Text(o.Evidence()))
	}
	return err
}

// noteOriginalNull warns of the live objects whose kapp.k14s.io/original holds null, on which
// kapp's deploy panics (check fails on them with the same words): explain runs no kapp, so its
// classes say what kapp would change, not that the deploy never gets to it.
func noteOriginalNull(c *cli.Context, set *pair.Set) error {
	for _, p := range set.Pairs {
		live, err := p.Live.Object()
		if err != nil {
			return err
		}
		if err := verify.OriginalNull(live.Unstructured, live.Source.String()); err != nil {
			fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", err)
		}
	}
	return nil
}

// explainGroupAbove: explain's text of more resources is grouped (a fleet: thousands of copies of
// the same few differences).
const explainGroupAbove = 100

func palette(mode string) (emit.Palette, error) {
	switch mode {
	case "always":
		return emit.Palette{On: true}, nil
	case "never":
		return emit.Palette{}, nil
	case "auto":
		// NO_COLOR: no-color.org; TERM=dumb: a terminal that shows escape sequences as text
		return emit.Palette{On: isTTY(os.Stdout) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"}, nil
	}
	return emit.Palette{}, fmt.Errorf("--color: want auto, always or never, got %q", mode)
}
