package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/words"
)

// checkExits are check's exit statuses, as README's table words them (TestHelpExitStatuses).
var checkExits = []string{
	"0 nothing fails the gate: no ghost diff left; changes made in Git (pending), and drift or adoption changes without their --fail-on- flag, are reported as warnings",
	"1 usage or input error",
	"3 ghost diffs remain, kapp still updates a resource for a field nothing explains (unknown), a desired object has no live counterpart (a pending create, named, with a hint when it is live in another namespace: nothing was compared for it), a live object of the app has no desired counterpart (a pending delete: kapp deletes it on deploy; the app's objects are those labelled kapp.k14s.io/app as the paired live objects are and created by kapp, their kapp.k14s.io/identity naming them: kapp never deletes other labelled objects, a controller's, which it treats as transient), a rule hides a change made in Git to a declared field, generated rules are stale, drift with --fail-on-drift, adoption changes with --fail-on-adoption, or an adoption change kapp's first deploy fails on (an immutable selector its label scoping writes: see Objects kapp takes over) (as kapp --diff-exit-status: 3 = pending changes)",
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
		),
		Action: func(c *cli.Context) error {
			f, err := format.Parse(c.String("output"), format.Report())
			if err != nil {
				return err
			}
			rules := c.StringSlice("rules")
			res, err := generator.Check(inputs(c), rules)
			if err != nil {
				return err
			}
			noteNamespace(c, res.InferredNamespace)
			noteUnmanaged(c, res.Unmanaged, res.Live)
			noteVersion(c, res.VersionWarning)
			if res.LintSkipped != nil {
				fmt.Fprintf(c.App.ErrWriter, "note: lint skipped: %s\n", escape.Lines(res.LintSkipped.Error()))
			}
			findings := res.Findings(verdict.Gate{FailOnDrift: c.Bool("fail-on-drift"), FailOnAdoption: c.Bool("fail-on-adoption")})
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

type checkJSON struct {
	Version  int         `json:"version"`
	Residual []fieldJSON `json:"residual"`
	Stale    []staleJSON `json:"stale"`
	Drift    []fieldJSON `json:"drift"`
	Unknown  []fieldJSON `json:"unknown"`
	// Hidden are declared fields whose change made in Git a rule hides from kapp.
	Hidden []fieldJSON `json:"hidden"`
	// PendingCreates are desired objects with no live counterpart: not compared.
	PendingCreates []fieldJSON    `json:"pendingCreates"`
	Paired         int            `json:"paired"`
	Kept           int            `json:"kept"`
	Adoption       []fieldJSON    `json:"adoption,omitempty"` // one-time changes when kapp takes objects over
	Lint           []lint.Finding `json:"lint"`

	// Pending are changes made in Git that kapp applies on deploy: warnings, never drift.
	Pending []fieldJSON `json:"pending"`
	// PendingDeletes are live objects of the app with no desired counterpart: kapp deletes them.
	PendingDeletes []fieldJSON `json:"pendingDeletes"`
}

type fieldJSON struct {
	Resource string `json:"resource"`
	Path     string `json:"path,omitempty"`
	Class    string `json:"class,omitempty"`
	Evidence string `json:"evidence"`
	// File and Line: where the rule hiding a change is written (hidden only).
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Severity: error when the finding fails the gate (drift with --fail-on-drift, adoption with
	// --fail-on-adoption), else warning; drift and adoption only.
	Severity string `json:"severity,omitempty"`
}

type staleJSON struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Diff string `json:"diff"`
}

// writeCheck writes what check found in the format asked for: one renderer per format, each
// rendering every kind of finding (verdict.Kinds), then lint's findings in the same format.
func writeCheck(w io.Writer, f format.Format, res *generator.Checked, rules []string, fs []verdict.Finding) error {
	switch f {
	case format.JSON:
		return checkJSONOut(w, res, fs)
	case format.GitHub:
		return checkGitHub(w, res, fs, rules[0])
	default:
		return checkText(w, res, fs)
	}
}

// severity is a finding's level in the github format and JSON: error when it fails the gate.
func severity(f verdict.Finding) string {
	if f.Fails {
		return "error"
	}
	return "warning"
}

// what names the field, or the resource when kapp's engine found it changed as a whole.
func what(f verdict.Finding) string {
	if f.Path == "" {
		return resource(f) + " (kapp still updates it)"
	}
	return fmt.Sprintf("%s %s (%s)", resource(f), escape.Text(f.Path), escape.Text(f.Class))
}

// resource and path are a finding's resource and field as the text and github formats show them
// (escape.Text: names come from the inputs); evidence keeps its lines (kapp's diff).
func resource(f verdict.Finding) string { return escape.Text(f.Resource.String()) }
func path(f verdict.Finding) string     { return escape.Text(f.Path) }
func evidence(f verdict.Finding) string { return escape.Lines(f.Evidence) }

// subject is what a finding is about, after its kind's label, in the text and github formats.
func subject(f verdict.Finding) string {
	switch f.Kind {
	case verdict.KindResidual:
		return what(f)
	case verdict.KindPendingCreate, verdict.KindPendingDelete:
		return resource(f)
	case verdict.KindUnknown:
		return "kapp still updates " + resource(f) + " for " + path(f)
	case verdict.KindStale:
		return fmt.Sprintf("%s would change (line %d)", escape.Text(f.File), f.Line)
	}
	return resource(f) + " " + path(f)
}

// line is a finding as the text and github formats begin it: its kind's label, then its subject.
func line(f verdict.Finding) (string, error) {
	if f.Kind.Label() == "" {
		return "", fmt.Errorf("check: no label for findings of kind %q", f.Kind)
	}
	return f.Kind.Label() + ": " + subject(f), nil
}

func checkText(w io.Writer, res *generator.Checked, fs []verdict.Finding) error {
	var b strings.Builder
	n := map[verdict.Kind]int{}
	for _, f := range fs {
		n[f.Kind]++
		l, err := line(f)
		if err != nil {
			return err
		}
		switch f.Kind {
		case verdict.KindStale:
			fmt.Fprintf(&b, "%s:\n%s", l, escape.Lines(f.Diff))
		case verdict.KindDrift: // a warning unless --fail-on-drift: the level says which
			fmt.Fprintf(&b, "%s: %s: %s\n", severity(f), l, evidence(f))
		default:
			fmt.Fprintf(&b, "%s: %s\n", l, evidence(f))
		}
	}
	if err := lint.Write(&b, res.Lint, lint.FormatText); err != nil {
		return err
	}
	// one summary line, lint's counts in it
	pending := ""
	if k := n[verdict.KindPendingCreate]; k > 0 {
		pending = ", " + words.Count(k, "pending create")
	}
	if k := n[verdict.KindPendingDelete]; k > 0 {
		pending += ", " + words.Count(k, "pending delete")
	}
	if k := n[verdict.KindHidden]; k > 0 {
		pending += ", " + words.Count(k, "declared field") + " hidden by the rules"
	}
	if k := n[verdict.KindPending]; k > 0 {
		pending += ", " + words.Count(k, "pending change") + " from Git, applied on deploy"
	}
	if k := n[verdict.KindAdoption]; k > 0 {
		pending += ", " + words.Count(k, "adoption change")
	}
	driftLevel := "warning"
	if slices.ContainsFunc(fs, func(f verdict.Finding) bool { return f.Kind == verdict.KindDrift && f.Fails }) {
		driftLevel = "error"
	}
	fmt.Fprintf(&b, "check: kapp keeps %d/%d paired resources%s; %s, %s, %s, %s, lint: %s\n", res.Verdict.Kept, res.Verdict.Paired, pending,
		words.Count(n[verdict.KindResidual], "residual ghost diff"), words.Count(n[verdict.KindUnknown], "unknown field"),
		words.Count(n[verdict.KindStale], "stale generated file"), words.Count(n[verdict.KindDrift], "drift "+driftLevel), lint.Summary(res.Lint))
	_, err := io.WriteString(w, b.String())
	return err
}

// checkGitHub writes workflow commands; annotations point at the rules file (that is what the
// author fixes), a stale file's at its first differing line, a hidden change's at the rule hiding it.
func checkGitHub(w io.Writer, res *generator.Checked, fs []verdict.Finding, rules string) error {
	var b strings.Builder
	for _, f := range fs {
		msg, err := line(f)
		if err != nil {
			return err
		}
		file, at := rules, 1
		switch f.Kind {
		case verdict.KindStale:
			file, at = f.File, f.Line
			msg += ": " + evidence(f)
		case verdict.KindHidden:
			if f.File != "" { // the rule hiding it
				file, at = f.File, f.Line
			}
			msg += ": " + evidence(f)
		case verdict.KindPendingCreate, verdict.KindPendingDelete, verdict.KindAdoption:
			// the evidence says what to fix: the object, the rule hiding a change, the tool whose
			// bookkeeping kapp removes; the other kinds' evidence (kapp's diff, defaulting code,
			// managers) is the text format's
			msg += ": " + evidence(f)
		}
		b.WriteString(lint.GitHubCommand(severity(f), file, at, msg))
	}
	if err := lint.Write(&b, res.Lint, lint.FormatGitHub); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func checkJSONOut(w io.Writer, res *generator.Checked, fs []verdict.Finding) error {
	j := checkJSON{Version: 1, Residual: []fieldJSON{}, Drift: []fieldJSON{}, Unknown: []fieldJSON{}, Stale: []staleJSON{}, Lint: res.Lint,
		Paired: res.Verdict.Paired, Kept: res.Verdict.Kept, PendingCreates: []fieldJSON{}, Hidden: []fieldJSON{}, Pending: []fieldJSON{}, PendingDeletes: []fieldJSON{}}
	if j.Lint == nil {
		j.Lint = []lint.Finding{}
	}
	for _, f := range fs {
		fj := fieldJSON{Resource: f.Resource.String(), Path: f.Path, Class: f.Class, Evidence: f.Evidence}
		switch f.Kind {
		case verdict.KindResidual:
			j.Residual = append(j.Residual, fj)
		case verdict.KindPendingDelete:
			j.PendingDeletes = append(j.PendingDeletes, fj)
		case verdict.KindPendingCreate:
			j.PendingCreates = append(j.PendingCreates, fj)
		case verdict.KindUnknown:
			j.Unknown = append(j.Unknown, fj)
		case verdict.KindHidden:
			fj.File, fj.Line = f.File, f.Line
			j.Hidden = append(j.Hidden, fj)
		case verdict.KindStale:
			j.Stale = append(j.Stale, staleJSON{File: f.File, Line: f.Line, Diff: f.Diff})
		case verdict.KindDrift:
			fj.Severity = severity(f)
			j.Drift = append(j.Drift, fj)
		case verdict.KindPending:
			j.Pending = append(j.Pending, fj)
		case verdict.KindAdoption:
			fj.Severity = severity(f)
			j.Adoption = append(j.Adoption, fj)
		default:
			return fmt.Errorf("check: no json rendering for findings of kind %q", f.Kind)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(j); err != nil {
		return err
	}
	_, err := w.Write(escape.JSON(b.Bytes()))
	return err
}

// hint appends a hint to a line, when there is one.
func hint(h string) string {
	if h == "" {
		return ""
	}
	return "; " + escape.Text(h)
}
