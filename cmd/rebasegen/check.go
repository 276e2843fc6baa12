package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
)

// checkExits are check's exit statuses, as README's table words them (TestHelpExitStatuses).
var checkExits = []string{
	"0 nothing fails the gate: no ghost diff left; changes made in Git (pending changes, creates and deletes: what this deploy applies), and drift or adoption changes, without their --fail-on- flag, are reported as warnings",
	"1 usage or input error",
	"3 ghost diffs remain, kapp still updates a resource for a field nothing explains (unknown), a desired object with no live counterpart is live in another namespace (a pending create with a hint: most likely a wrong -n or capture, not a change made in Git; nothing was compared for it), pending creates with --fail-on-create (desired objects with no live counterpart: kapp creates them), pending deletes with --fail-on-delete (live objects of the app with no desired counterpart: kapp deletes them on deploy; the app's objects are those labelled kapp.k14s.io/app as the paired live objects are and created by kapp, their kapp.k14s.io/identity naming them: kapp never deletes other labelled objects, a controller's, which it treats as transient), a rule hides a change made in Git to a declared field, a hand-written ytt rule decides on values the mutation check does not vary (rule not judged), generated rules are stale, drift with --fail-on-drift (or whatever it says, where kapp's deploy fails to revert it: an immutable field), adoption changes with --fail-on-adoption, a change made in Git kapp's deploy fails on (an immutable field, or an update the API server's validation refuses: a Service's, a ResourceClaimTemplate's, a custom resource's its CRD's schema or x-kubernetes-validations rules refuse...), a change kapp's deploy makes to a CustomResourceDefinition by deleting it, and every custom resource of it (kapp.k14s.io/update-strategy always-replace, or fallback-on-replace and an update the server refuses), a paired live object labelled as another kapp app's (kapp's deploy fails its ownership check before applying anything), a change kapp's deploy fails on by its change groups or rules (a cycle among the resources this deploy creates, updates or deletes, kapp's kapp.k14s.io/change-group/change-rule annotations or a Config's bindings; an unknown rule or an invalid group name) or by an unknown kapp.k14s.io/update-strategy, a wait rule kapp fails to wait with on a resource this deploy creates, updates or keeps (a ytt without funcContractV1, on which kapp panics, a resource.star that does not load in ytt, conditionMatchers with no success one, or conditions the live object's controller does not write, its status reconciled at the generation captured: kapp waits until its timeout), preflight rules kapp refuses (an unknown name, a name given twice) in a deploy changing anything, a CRD change kapp's CRDUpgradeSafety preflight check refuses where the preflight rules name it (an enum added where there was none...), a manifest's apiVersion at which the API server does not serve its kind (kapp's deploy fails before applying anything: see The server's version), or an adoption change kapp's first deploy fails on (an immutable selector its label scoping writes: see Objects kapp takes over) (the status of kapp --diff-exit-status for changes; a pending change from Git alone exits 0)",
	"4 lint errors only (see rebasegen lint)",
}

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:        "check",
		Usage:       "CI gate: fail when ghost diffs remain under the rules or generated rules are stale",
		Description: helpText("rebasegen check -d desired.yaml -l live.yaml -n my-namespace --rules rebase-rules.yml", checkExits...),
		Flags: append(inputFlags(),
			&cli.StringSliceFlag{Name: "rules", Aliases: []string{"r"}, Usage: "rule files (config, ytt or secret format) or directories: kapp Configs, or a package's config directory rendered with its values (repeatable)", Required: true},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: string(format.Text), Usage: format.Words(format.Report())},
			&cli.BoolFlag{Name: "fail-on-drift", Usage: "exit 3 when live objects drifted from the desired state"},
			&cli.BoolFlag{Name: "fail-on-adoption", Usage: "exit 3 when kapp would change objects once to take them over from another tool"},
			&cli.BoolFlag{Name: "fail-on-create", Usage: "exit 3 when kapp's deploy (Argo CD's sync, --target argocd) would create objects (pending creates: desired objects with no live counterpart)"},
			&cli.BoolFlag{Name: "fail-on-delete", Usage: "exit 3 when kapp's deploy (Argo CD's sync with pruning, --target argocd) would delete objects of the app (pending deletes: live objects with no desired counterpart)"},
			targetFlag(), syncOptionFlag(),
		),
		Action: func(c *cli.Context) error {
			if argo, err := argoTarget(c); err != nil || argo {
				if err != nil {
					return err
				}
				return checkArgoCD(c) // --rules: Applications or argocd-cm
			}
			f, err := format.Parse(c.String("output"), format.Report())
			if err != nil {
				return err
			}
			rules := c.StringSlice("rules")
			res, err := generator.Check(inputs(c), rules)
			if err != nil {
				return err
			}
			noteNamespace(c, res.InferredNamespace, res.NamespaceUnused)
			noteUnmanaged(c, res.Unmanaged, res.Uncaptured, res.Live)
			noteRedacted(c, res.Redacted)
			for _, d := range res.Deferred {
				var inputs string
				if len(d.Inputs) > 0 {
					inputs = " (the inputs differ from its Regenerate line's: " + strings.Join(d.Inputs, ", ") + ")"
				}
				if len(d.AfterDeploy) > 0 {
					fmt.Fprintf(c.App.ErrWriter, "note: %s is not stale: kapp applies this deploy's removals made in Git, or its CRDs' changed defaults, under it%s; after the deploy the server's defaults of the fields the manifests do not declare (%s) are ghost diffs it does not copy, and regenerating it now changes nothing (the live objects captured before the deploy hold the old values): regenerate it after this deploy, from a new capture\n", escape.Text(d.File), escape.Text(inputs), escape.Text(strings.Join(d.AfterDeploy, ", ")))
					continue
				}
				fmt.Fprintf(c.App.ErrWriter, "note: %s is not stale: it is up to date with what kapp last applied (kapp.k14s.io/original); only this deploy's changes made in Git would change it%s, and regenerating it from these manifests against live objects captured before the deploy could drop rules the deployed objects need: regenerate it after the deploy, from a new capture\n", escape.Text(d.File), escape.Text(inputs))
			}
			if res.StaleUnjudged != "" {
				fmt.Fprintf(c.App.ErrWriter, "note: generated rule files not judged stale: the namespaced desired objects do not pair with the live objects, which hold them in namespace %s (did you mean -n %s?)\n", escape.Text(res.StaleUnjudged), escape.Text(res.StaleUnjudged))
			}
			if res.LintSkipped != nil {
				fmt.Fprintf(c.App.ErrWriter, "note: lint skipped: %s\n", escape.Lines(res.LintSkipped.Error()))
			}
			findings := res.Findings(verdict.Gate{FailOnDrift: c.Bool("fail-on-drift"), FailOnAdoption: c.Bool("fail-on-adoption"),
				FailOnCreate: c.Bool("fail-on-create"), FailOnDelete: c.Bool("fail-on-delete")})
			out := c.App.Writer
			if f == format.Text {
				out = wrapTo(out)
			}
			if err := writeCheck(out, f, res, rules, findings); err != nil {
				return err
			}
			switch {
			case verdict.Failing(findings):
				return cli.Exit("", exitPending)
			case lint.HasErrors(res.Lint):
				return cli.Exit("", exitLint)
			}
			return nil
		},
	}
}

// writeCheck writes what check found in the format asked for (verdict.Write); GitHub
// annotations without a place of their own point at the first rules file.
func writeCheck(w io.Writer, f format.Format, res *generator.Checked, rules []string, fs []verdict.Finding) error {
	return verdict.Write(w, f, verdict.CheckReport(res.Verdict, fs, res.Lint), rules[0])
}

// hint appends a hint to a line, when there is one.
func hint(h string) string {
	if h == "" {
		return ""
	}
	return "; " + escape.Text(h)
}
