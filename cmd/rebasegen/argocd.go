package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/words"
)

// targets are what generate writes for: kapp's rebase rules (the default) or Argo CD's
// ignoreDifferences.
var targets = []string{"kapp", "argocd"}

func targetFlag() cli.Flag {
	return &cli.StringFlag{Name: "target", Value: "kapp", Usage: "kapp (rebase rules) or argocd (Argo CD ignoreDifferences: generate writes an Application's, or argocd-cm's with --output argocd-cm, verified with Argo CD's diff; check reads them from --rules)"}
}

func appFlag() cli.Flag {
	return &cli.StringFlag{Name: "app", Value: "my-app", Usage: "--target argocd: the Application's name (metadata.name of the file written; NAMESPACE_NAME, as a tracking id names it, for one outside Argo CD's namespace); default: the one the live objects' tracking ids name, else my-app"}
}

func syncOptionFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "sync-option", Usage: "--target argocd: a sync option a manual sync runs with, NAME=VALUE as in spec.syncPolicy.syncOptions (repeatable); given, they replace the Application's for what a sync does with the ignored fields, as Argo CD's API server replaces them (argocd app sync --server-side sends ServerSideApply=true alone)"}
}

// argoTarget reports whether --target is argocd, and an error for a target that is neither, a
// flag of the other target or a --sync-option Argo CD would not read as meant.
func argoTarget(c *cli.Context) (bool, error) {
	t := c.String("target")
	if !slices.Contains(targets, t) {
		return false, fmt.Errorf("--target %s: not a target (%s)", escape.Text(t), strings.Join(targets, ", "))
	}
	if t != "argocd" {
		if c.IsSet("sync-option") {
			return false, errors.New("--sync-option: an Argo CD sync option, only with --target argocd (kapp's deploy has none)")
		}
		return false, nil
	}
	if err := argocd.CheckSyncOptions(c.StringSlice("sync-option")); err != nil {
		return true, err
	}
	for _, name := range kappOnly {
		if c.IsSet(name) {
			return true, fmt.Errorf("--%s: a kapp target flag, not for --target argocd (there drift, pending changes and adoption are warnings, which no flag changes)", name)
		}
	}
	return true, nil
}

// kappOnly are the flags of check and generate that only the kapp target reads: with --target
// argocd they would be silently void.
var kappOnly = []string{"fail-on-drift", "fail-on-adoption", "include-unknown", "cost", "namespace-value", "package-install"}

// generateArgoCD is generate --target argocd: Argo CD's ignoreDifferences in place of rules.
func generateArgoCD(c *cli.Context) error {
	f := argocd.Application
	if c.IsSet("output") {
		f = argocd.Format(c.String("output"))
		if !slices.Contains(argocd.Formats(), f) {
			return fmt.Errorf("--output %s: not an Argo CD format (application, argocd-cm)", escape.Text(string(f)))
		}
	}
	rf, err := reportFormat(c)
	if err != nil {
		return err
	}
	regenerate, err := argoArgs(c) // before any work: a value its line cannot record is refused
	if err != nil {
		return err
	}
	in := inputs(c)
	if err := checkOutputFile(c.String("output-file"), in); err != nil {
		return err
	}
	a, err := generator.Analyze(in)
	if err != nil {
		return err
	}
	if err := verdict.NothingPaired(a.Set, verdict.UnpairedOf(a.Set)); err != nil {
		return err
	}
	noteNamespace(c, a.Set.InferredNamespace, a.Set.NamespaceUnused)
	noteUnmanaged(c, a.Set.Unmanaged, a.Set.Uncaptured, a.Set.Live)
	noteVersion(c, a.Set.VersionWarning)
	app, notes, err := argoApp(c, argocd.TrackedApps(a.Report))
	if err != nil {
		return err
	}
	notes = argoNotes(c, rf, notes)
	header := []string{
		argoHeader + version + " (verified with Argo CD " + kappconv.ArgoCD + "'s diff).",
		"Regenerate: rebasegen " + strings.Join(regenerate, " "),
	}
	g, err := argocd.Generate(a.Report, f, app, header, c.String("output-file"))
	if err != nil {
		return err
	}
	v := manualSync(c, g.Verification)
	r := argocd.Report{Verification: v, Ignores: len(g.Ignores)}
	// what a sync does with the fields a controller owns
	r.Notes = append(notes, argoNotes(c, rf, v.SyncNotes())...)
	out := c.App.Writer // json, github: as check writes them, the ignores in --output-file
	if rf == format.Text {
		// the server version's warning is said above (noteVersion)
		r.Findings, out = argocd.Findings(g.Left, v, nil, ""), c.App.ErrWriter
	} else {
		r.Findings = argocd.Findings(g.Left, v, nil, a.Set.VersionWarning)
	}
	r.Summary = v.Summary(len(g.Ignores), g.Left, r.Findings)
	if err := r.Write(out, rf, c.String("output-file")); err != nil {
		return err
	}
	if !v.OK() && !c.Bool("force") {
		return cli.Exit("verification failed: nothing written (use --force to write anyway)", exitPending)
	}
	if err := writeOutput(c.String("output-file"), g.Output, c.App.Writer); err != nil {
		return err
	}
	if !v.OK() {
		return cli.Exit("verification failed: written because of --force", exitPending)
	}
	if n := argocd.Stuck(g.Left); n > 0 {
		return cli.Exit(fmt.Sprintf("ignores written, but Argo CD still shows %s OutOfSync for ghost diffs no ignore may take (listed above): fix them in the manifest", words.Count(n, "resource")), exitPending)
	}
	return nil
}

// argoApp is the Application generate writes for: --app, by default the one the live objects'
// tracking ids name. An Application's ignores apply only to the objects it tracks, so an --app
// other than that one is refused: its ignores would apply to none of them.
func argoApp(c *cli.Context, tracked []string) (string, []argocd.Note, error) {
	switch {
	case len(tracked) == 1 && (!c.IsSet("app") || argocd.Names(c.String("app"), tracked[0])):
		return tracked[0], nil, nil
	case len(tracked) == 1:
		app, want := escape.Text(c.String("app")), escape.Text(tracked[0])
		return "", nil, fmt.Errorf("--app %s: the live objects' argocd.argoproj.io/tracking-id names Application %s: the ignores of %s would apply to none of them (leave out --app, or give --app %s)",
			app, want, app, want)
	case len(tracked) > 1:
		return c.String("app"), []argocd.Note{{Warning: true, Text: fmt.Sprintf("the live objects' tracking ids name %d Applications (%s): the ignores of %s apply only to the objects it tracks",
			len(tracked), escape.Text(strings.Join(tracked, ", ")), escape.Text(c.String("app")))}}, nil
	}
	return c.String("app"), nil, nil
}

// manualSync is v judged for the manual sync --sync-option describes, when given.
func manualSync(c *cli.Context, v argocd.Verification) argocd.Verification {
	if !c.IsSet("sync-option") {
		return v
	}
	return v.SyncedWith(c.StringSlice("sync-option"))
}

// argoNotes are the notes of an Argo CD target's run: said on stderr, except in the github
// format, where the report annotates them (the job's summary shows annotations, not stderr).
func argoNotes(c *cli.Context, f format.Format, notes []argocd.Note) []argocd.Note {
	if f == format.GitHub {
		return notes
	}
	for _, n := range notes {
		fmt.Fprintln(c.App.ErrWriter, n)
	}
	return nil
}

// argoArgs is the command that regenerates the file: generate with the flags given, in a fixed
// order; an error for a value the line cannot record (emit.Recordable).
func argoArgs(c *cli.Context) ([]string, error) {
	args := []string{"generate", "--target", "argocd"}
	add := func(name, v string) error {
		args = append(args, "--"+name, emit.ShellQuote(v))
		return emit.Recordable(name, v)
	}
	for _, name := range []string{"desired", "live", "crd", "ruleset"} {
		for _, v := range c.StringSlice(name) {
			if err := add(name, v); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range []string{"namespace", "server-version", "output", "output-file", "app"} {
		if c.IsSet(name) {
			if err := add(name, c.String(name)); err != nil {
				return nil, err
			}
		}
	}
	return args, nil
}

// checkArgoCD is check --target argocd: hand-written ignoreDifferences (Applications, argocd-cm)
// judged with Argo CD's diff on the analysed pairs, and linted, written as --output asks.
func checkArgoCD(c *cli.Context) error {
	f, err := format.Parse(c.String("output"), format.Report())
	if err != nil {
		return err
	}
	in := inputs(c)
	objs, err := load.Paths(c.StringSlice("rules"), in.Reader)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		return fmt.Errorf("--rules %s: no Argo CD Application or argocd-cm ConfigMap (empty input: a pipeline whose first command failed?)", escape.Text(strings.Join(c.StringSlice("rules"), ", ")))
	}
	s, err := argocd.Read(objs, in.Reader)
	if err != nil {
		return err
	}
	a, err := generator.Analyze(in)
	if err != nil {
		return err
	}
	noteNamespace(c, a.Set.InferredNamespace, a.Set.NamespaceUnused)
	noteUnmanaged(c, a.Set.Unmanaged, a.Set.Uncaptured, a.Set.Live)
	if s, err = s.WithAnnotations(a.Report); err != nil {
		return err
	}
	tracking := argoNotes(c, f, argocd.Tracking(a.Report, s))
	res, err := argocd.Synthesize(a.Report, s)
	if err != nil {
		return err
	}
	v, err := argocd.Verify(a.Report, s, res.Ghost)
	if err != nil {
		return err
	}
	v = manualSync(c, v)
	unpaired, err := argocd.Unpaired(a.Set, a.Report, s, verdict.Gate{FailOnCreate: c.Bool("fail-on-create"), FailOnDelete: c.Bool("fail-on-delete")})
	if err != nil {
		return err
	}
	r := argocd.Report{Findings: argocd.Findings(res.Left, v, unpaired, a.Set.VersionWarning), Verification: v, Ignores: len(s.Ignores) + len(s.Overrides)}
	r.Summary = v.Summary(r.Ignores, res.Left, r.Findings)
	for _, l := range argocd.LintSettings(a.Report, s) {
		r.Lints = append(r.Lints, l.Finding())
	}
	// what a sync does with the fields a controller owns
	r.Notes = append(tracking, argoNotes(c, f, v.SyncNotes())...)
	out := c.App.Writer
	if f == format.Text {
		out = wrapTo(out)
	}
	if err := r.Write(out, f, c.StringSlice("rules")[0]); err != nil {
		return err
	}
	switch {
	case verdict.Failing(r.Findings):
		return cli.Exit("", exitPending)
	case lint.HasErrors(r.Lints):
		return cli.Exit("", exitLint)
	}
	return nil
}
