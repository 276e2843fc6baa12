package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/words"
)

// generateExits are generate's exit statuses, as README's table words them (TestHelpExitStatuses).
var generateExits = []string{
	"0 rules written and verified",
	"1 usage or input error",
	"3 verification failed: kapp would still apply changes, or its deploy fails on a live object labelled as another kapp app's, nothing written (with --force: written); or the rules are written but kapp still updates a resource for a field nothing explains (unknown), for drift with --fail-on-drift, or for adoption changes with --fail-on-adoption (as kapp --diff-exit-status: 3 = changes would still be applied)",
}

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:        "generate",
		Usage:       "write the narrowest kapp rebase rules that remove the ghost diffs, verified with kapp's diff engine",
		Description: helpText("rebasegen generate -d desired.yaml -l live.yaml -n my-namespace --output-file rebase-rules.yml", generateExits...),
		Flags: append(inputFlags(),
			// -o is a format in every command (kubectl's habit); --format is what headers written
			// before that say, so committed files' Regenerate: lines keep working.
			&cli.StringFlag{Name: "output", Aliases: []string{"o", "format"}, Value: "config", Usage: format.Words(format.Rules())},
			&cli.StringFlag{Name: "output-file", Value: "-", Usage: "file to write, or - for stdout"},
			&cli.BoolFlag{Name: "fail-on-adoption", Usage: "exit 3 (rules still written) when kapp would change objects once to take them over from another tool"},
			&cli.BoolFlag{Name: "include-unknown", Usage: "also rule fields nothing explains (warns for each)"},
			&cli.BoolFlag{Name: "fail-on-drift", Usage: "exit 3 when live objects drifted from the desired state"},
			&cli.BoolFlag{Name: "force", Usage: "write the rules even when verification fails (still exits 3)"},
			&cli.BoolFlag{Name: "cost", Usage: "also report what the rules cost kapp's diff on every deploy (timed, so it varies from run to run)"},
			&cli.StringSliceFlag{Name: "namespace-value", Usage: "ytt format: KEY or NS=KEY, write namespaces as #@ data.values.KEY (repeatable)"},
			&cli.StringFlag{Name: "package-install", Usage: "secret format: the PackageInstall the Secret is for, [NAMESPACE/]NAME (its namespace, else --namespace)"},
			targetFlag(), appFlag(), reportFlag(), syncOptionFlag(),
		),
		Action: func(c *cli.Context) error {
			if argo, err := argoTarget(c); err != nil || argo {
				if err != nil {
					return err
				}
				return generateArgoCD(c)
			}
			format, err := generateFormat(c.String("output"), c.String("output-file"))
			if err != nil {
				return err
			}
			rf, err := reportFormat(c)
			if err != nil {
				return err
			}
			opts := generateOptions(c, format)
			if err := opts.Misplaced(); err != nil {
				return err // a format's flag given with another
			}
			if err := opts.Recordable(); err != nil {
				return err // the Regenerate line could not rerun the command
			}
			early := opts
			if early.Namespace == "" {
				// the namespace may yet be inferred from the live objects: the Secret's is
				// asked for, if at all, after the analysis
				early.Namespace = "default"
			}
			if err := emit.WriteRules(io.Discard, nil, emit.Header{Options: early}); err != nil {
				return err // a bad --output or --package-install, before the analysis
			}
			in := inputs(c) // one Reader: stdin and pipes are read once
			if err := checkNamespaceValues(c.StringSlice("namespace-value"), in); err != nil {
				return err
			}
			if err := checkOutputFile(c.String("output-file"), in); err != nil {
				return err
			}
			if out := c.String("output-file"); out != "-" {
				in.RuleFiles = []string{out} // the rules it replaces are not in force, copied among the manifests or not
			}
			g, err := generator.Generate(in, opts.Synth())
			if err != nil {
				return err
			}
			noteNamespace(c, g.Set.InferredNamespace, g.Set.NamespaceUnused)
			noteInstallNamespace(c, opts, g.Set.InferredNamespace, g.Rules)
			noteUnmanaged(c, g.Set.Unmanaged, g.Set.Uncaptured, g.Set.Live)
			noteRedacted(c, g.Set.Redacted)
			noteVersion(c, g.Set.VersionWarning)
			if g.Set.InferredNamespace != "" {
				// The header records the namespace used, so its command does not depend on inference.
				opts.Namespace = g.Set.InferredNamespace
			}
			secrets, err := g.Set.SecretValues()
			if err != nil {
				return err
			}
			derived, err := generator.SecretDerivedArgs(in)
			if err != nil {
				return err
			}
			opts = opts.WithoutSecretValues(secrets, derived)
			var out bytes.Buffer
			if err := emit.WriteRules(&out, g.Rules, emit.Header{Version: version, Options: opts}); err != nil {
				return err
			}
			for _, w := range g.WarningsFor(opts) {
				fmt.Fprintln(c.App.ErrWriter, "warning:", escape.Text(w))
			}
			summary := fmt.Sprintf("%s; %s", words.Count(synth.Entries(g.Rules), "rule"), g.Verification.Summary())
			if err := writeGenerateReport(c, rf, g, summary); err != nil {
				return err
			}
			if !g.Verification.OK() {
				if !c.Bool("force") {
					return cli.Exit(failedWhy(g.Verification.Verdict)+": nothing written (use --force to write anyway)", exitPending)
				}
			}
			if err := writeOutput(c.String("output-file"), out.Bytes(), c.App.Writer); err != nil {
				return err
			}
			v := g.Verification
			pruned := 0 // resources kapp updates for a field the API server does not know
			for _, u := range v.Updates {
				if slices.ContainsFunc(u.Fields, func(f classify.Finding) bool { return f.Pruned }) {
					pruned++
				}
			}
			switch {
			case !v.OK():
				return cli.Exit(failedWhy(v.Verdict)+": written because of --force", exitPending)
			case pruned > 0:
				return cli.Exit(fmt.Sprintf("rules written, but kapp still updates %s for fields the API server does not know and drops (listed above): fix them in the manifest", words.Count(pruned, "resource")), exitPending)
			case v.Count(classify.Unknown) > 0:
				return cli.Exit(fmt.Sprintf("rules written, but kapp still updates %s for fields nothing explains (listed above): rule them with --include-unknown once you know why they differ", words.Count(v.Count(classify.Unknown), "resource")), exitPending)
			case c.Bool("fail-on-drift") && v.Count(classify.Drift) > 0:
				return cli.Exit(fmt.Sprintf("rules written; %s drifted from the desired state (--fail-on-drift)", words.Count(v.Count(classify.Drift), "resource")), exitPending)
			}
			if n := len(g.Verification.Adoption); n > 0 && c.Bool("fail-on-adoption") {
				changes := make([]string, n)
				for i, a := range g.Verification.Adoption {
					changes[i] = a.Resource.String() + " " + a.Finding.Path.String() + " (" + a.Finding.Owner + ")"
				}
				return cli.Exit(fmt.Sprintf("%s (--fail-on-adoption): %s", words.Count(n, "one-time adoption change"), escape.Text(strings.Join(changes, ", "))), exitPending)
			}
			return nil
		},
	}
}

// noteInstallNamespace says that a rules Secret is for a PackageInstall in one namespace while its
// rules name the one inferred from the live objects (newcomer11 N11-8: a consumer installing in
// prod with the author's capture of shop got rules for shop without a word). The Secret names
// each ruled resource with its namespace (synth.OwnResources), and kapp-controller installs the
// objects without a namespace into the PackageInstall's spec.defaultNamespace, else its own
// namespace: only the first can make the rules right. A namespace given with -n is the user's
// statement of where the objects go, so it is not questioned.
func noteInstallNamespace(c *cli.Context, o emit.Options, inferred string, rules []synth.Rule) {
	ns, pi := emit.PackageInstallRef(o.PackageInstall)
	if o.Format != emit.FormatSecret || inferred == "" || ns == "" || ns == inferred ||
		!slices.ContainsFunc(synth.Ruled(rules), func(id pair.Identity) bool { return id.Namespace == inferred }) {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "note: the Secret is for the PackageInstall %[1]s in namespace %[2]s, but its rules name namespace %[3]s, where the live objects hold the desired objects without a namespace: kapp-controller installs those into the PackageInstall's spec.defaultNamespace, else into its own namespace %[2]s, so the rules hold only if its spec.defaultNamespace is %[3]s; else generate with -n %[2]s from live objects captured there (rebasegen capture --package-install %[2]s/%[1]s)\n",
		escape.Text(pi), escape.Text(ns), escape.Text(inferred))
}

// failedWhy says why generate's verification failed: the rules left ghost diffs or hid a change,
// or kapp's deploy fails before it applies anything, which no rule changes.
func failedWhy(v *verdict.Verdict) string {
	if len(v.Residual) == 0 && len(v.Hidden) == 0 && len(v.Ownership) > 0 {
		return fmt.Sprintf("verification failed: kapp's deploy fails its ownership check on %s of another app (listed above), whatever the rules", words.Count(len(v.Ownership), "object"))
	}
	return "verification failed"
}

// reportFlag is generate's --report: the format its verdict is written in.
func reportFlag() cli.Flag {
	return &cli.StringFlag{Name: "report", Value: string(format.Text), Usage: "the verdict's format, " + format.Words(format.Report()) + ": text on stderr; json and github as check --output writes them, on stdout (the rules go to --output-file)"}
}

// reportFormat reads --report: json and github go to stdout, so the rules must go to a file.
func reportFormat(c *cli.Context) (format.Format, error) {
	f, err := format.Parse(c.String("report"), format.Report())
	switch {
	case err != nil:
		return "", fmt.Errorf("--report: want %s, got %q", format.Words(format.Report()), c.String("report"))
	case f != format.Text && c.String("output-file") == "-":
		return "", fmt.Errorf("--report %s writes the verdict to stdout, where the rules go without --output-file: write the rules with --output-file FILE", f)
	}
	return f, nil
}

// writeGenerateReport writes generate's verdict: in text on stderr, its summary, --cost's and
// what verdict.WriteGenerate says; in json and github on stdout with check's renderers
// (verdict.Write), GitHub annotations of a finding written nowhere on the rules file written.
func writeGenerateReport(c *cli.Context, f format.Format, g *generator.Generated, summary string) error {
	if f == format.Text {
		fmt.Fprintln(c.App.ErrWriter, summary)
	}
	if c.Bool("cost") {
		fmt.Fprintln(c.App.ErrWriter, g.Verification.CostSummary())
	}
	if f == format.Text {
		return verdict.WriteGenerate(c.App.ErrWriter, g.Verification.Verdict)
	}
	return verdict.Write(c.App.Writer, f, generateReport(g, verdict.Gate{FailOnDrift: c.Bool("fail-on-drift"), FailOnAdoption: c.Bool("fail-on-adoption")}, summary), c.String("output-file"))
}

// generateReport is generate's verdict as check's report: its findings, failing where generate
// exits 3, and its summary line.
func generateReport(g *generator.Generated, gate verdict.Gate, summary string) verdict.Report {
	v := g.Verification
	return verdict.Report{Findings: g.Findings(gate), Summary: "generate: " + summary, Paired: v.Paired, Kept: v.Kept}
}

func generateFormat(output, file string) (emit.Format, error) {
	f, err := format.Parse(output, format.Rules())
	switch {
	case err == nil && slices.Contains(format.Names(), file):
		return "", fmt.Errorf("--output-file %s: a format, not a file name: --output takes the format (%s); --output-file ./%s writes a file of that name", file, format.Words(format.Rules()), file)
	case err != nil && (strings.ContainsAny(output, "./") || output == "-"):
		return "", fmt.Errorf("%w (to write a file, use --output-file %s)", err, escape.Text(output))
	case err != nil && slices.Contains(format.Report(), format.Format(output)):
		return "", fmt.Errorf("%w: --output is the rules' format; generate's verdict in %s is --report %s", err, output, output)
	}
	return f, err
}

// checkNamespaceValues fails when a --namespace-value key is not among the package's data values:
// the rules would otherwise fail only when rendered ("struct has no .KEY field").
func checkNamespaceValues(flags []string, in generator.Inputs) error {
	if len(flags) == 0 || in.Package.Empty() {
		return nil // without the package its data values are not known here
	}
	values, err := in.Package.DataValues(in.Reader)
	if err != nil {
		return err
	}
	for _, f := range flags {
		key := f[strings.Index(f, "=")+1:]
		var node any = values
		for _, part := range strings.Split(key, ".") {
			m, _ := node.(map[string]any)
			v, ok := m[part]
			if !ok {
				have := slices.Sorted(maps.Keys(m))
				return fmt.Errorf("--namespace-value %s: the package's data values have no %s (at this level: %s); add it to the package's data values schema or pick one of those (rules name a namespace for the objects the package renders with one, and for those it renders without one where kapp cannot select them by kind: generate without --namespace-value warns naming them)", f, key, strings.Join(have, ", "))
			}
			node = v
		}
	}
	return nil
}

// generateOptions are the flags that change what generate writes, as its header records them.
func generateOptions(c *cli.Context, f emit.Format) emit.Options {
	o := emit.Options{
		Desired: c.StringSlice("desired"), Live: c.StringSlice("live"), CRDs: c.StringSlice("crd"), Rulesets: c.StringSlice("ruleset"),
		Packages: c.StringSlice("package"), Values: c.StringSlice("values"), ValueArgs: c.StringSlice("value"),
		ValueYAMLArgs: c.StringSlice("value-yaml"), PackageCR: c.String("package-cr"),
		NamespaceValues: c.StringSlice("namespace-value"), PackageInstall: c.String("package-install"), IncludeUnknown: c.Bool("include-unknown"),
		NoOperational: c.Bool("no-operational"), ServerVersion: c.String("server-version"),
	}
	if c.IsSet("output") {
		o.Format = f
	}
	for name, v := range map[string]*string{"namespace": &o.Namespace, "output-file": &o.OutputFile} {
		if c.IsSet(name) {
			*v = c.String(name)
		}
	}
	return o
}
