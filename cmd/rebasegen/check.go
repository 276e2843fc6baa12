package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/internal/words"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "CI gate: fail when ghost diffs remain under the rules or generated rules are stale",
		Description: helpText("rebasegen check -d desired.yaml -l live.yaml -n my-namespace --rules rebase-rules.yml",
			"0 clean", "1 usage or input error", "3 ghost diffs remain, a rule hides a declared field, generated rules are stale, or drift with --fail-on-drift",
			"4 lint errors only"),
		Flags: append(inputFlags(),
			&cli.StringSliceFlag{Name: "rules", Usage: "rule files (config, ytt or secret format) or directories: kapp Configs, or a package's config directory rendered with its values (repeatable)", Required: true},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "text, json or github"},
			&cli.BoolFlag{Name: "fail-on-drift", Usage: "exit 3 when live objects drifted from the desired state"},
			&cli.BoolFlag{Name: "fail-on-adoption", Usage: "exit 3 when kapp would change objects once to take them over from another tool"},
		),
		Action: func(c *cli.Context) error {
			format := c.String("output")
			if format != "text" && format != "json" && format != "github" {
				return fmt.Errorf("--output: want text, json or github, got %q", format)
			}
			rules := c.StringSlice("rules")
			res, err := generator.Check(inputs(c), rules)
			if err != nil {
				return err
			}
			noteNamespace(c, res.InferredNamespace)
			if res.LintSkipped != nil {
				fmt.Fprintf(c.App.ErrWriter, "note: lint skipped: %v\n", res.LintSkipped)
			}
			findings := res.Lint
			if err := writeCheck(c.App.Writer, format, res, rules, findings, c.Bool("fail-on-drift")); err != nil {
				return err
			}
			switch {
			case len(res.Residual) > 0 || len(res.Unknown) > 0 || len(res.Hidden) > 0 || len(res.Unpaired) > 0 || len(res.Stale) > 0 || (c.Bool("fail-on-drift") && len(res.Drift) > 0) ||
				(c.Bool("fail-on-adoption") && len(res.Adoption) > 0):
				return cli.Exit("", exitPending)
			case lint.HasErrors(findings):
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
}

type fieldJSON struct {
	Resource string `json:"resource"`
	Path     string `json:"path,omitempty"`
	Class    string `json:"class,omitempty"`
	Evidence string `json:"evidence"`
	Severity string `json:"severity,omitempty"` // drift: error with --fail-on-drift, else warning
}

type staleJSON struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Diff string `json:"diff"`
}

// what names the field, or the resource when kapp's engine found it changed as a whole.
func (f fieldJSON) what() string {
	if f.Path == "" {
		return f.Resource + " (kapp still updates it)"
	}
	return fmt.Sprintf("%s %s (%s)", f.Resource, f.Path, f.Class)
}

func fields(rs []generator.Residual) []fieldJSON {
	out := []fieldJSON{}
	for _, r := range rs {
		f := fieldJSON{Resource: r.Resource.String(), Evidence: r.Finding.Evidence}
		if r.Finding.Path != nil {
			f.Path, f.Class = r.Finding.Path.String(), r.Finding.Label()
		}
		out = append(out, f)
	}
	return out
}

// writeCheck writes what check found; drift is an error with --fail-on-drift (it fails the
// gate), else a warning.
func writeCheck(w io.Writer, format string, res *generator.Checked, rules []string, findings []lint.Finding, failOnDrift bool) error {
	driftLevel := "warning"
	if failOnDrift {
		driftLevel = "error"
	}
	j := checkJSON{Version: 1, Residual: fields(res.Residual), Drift: fields(res.Drift), Unknown: fields(res.Unknown), Adoption: fields(res.Adoption), Stale: []staleJSON{}, Lint: findings,
		Paired: res.Verdict.Paired, Kept: res.Verdict.Kept, PendingCreates: []fieldJSON{}, Hidden: []fieldJSON{}}
	for _, h := range res.Hidden {
		j.Hidden = append(j.Hidden, fieldJSON{Resource: h.Resource.String(), Path: h.Path, Evidence: hiddenEvidence(h)})
	}
	for _, u := range res.Unpaired {
		j.PendingCreates = append(j.PendingCreates, fieldJSON{Resource: u.Resource.String(), Evidence: "no live counterpart: kapp would create it, nothing was compared. " + u.Hint})
	}
	for i := range j.Drift {
		j.Drift[i].Severity = driftLevel
	}
	if j.Lint == nil {
		j.Lint = []lint.Finding{}
	}
	for _, s := range res.Stale {
		j.Stale = append(j.Stale, staleJSON{File: s.File, Line: s.Line, Diff: s.Diff})
	}
	var b strings.Builder
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(j)
	case "github":
		// Annotations point at the rules file: that is what the author fixes.
		for _, f := range j.Residual {
			b.WriteString(lint.GitHubCommand("error", rules[0], 1, "residual ghost diff: "+f.what()))
		}
		for _, f := range j.PendingCreates {
			b.WriteString(lint.GitHubCommand("error", rules[0], 1, "pending create, not compared: "+f.Resource+": "+f.Evidence))
		}
		for _, f := range j.Unknown {
			b.WriteString(lint.GitHubCommand("error", rules[0], 1, fmt.Sprintf("kapp still updates %s for a field nothing explains: %s", f.Resource, f.Path)))
		}
		for _, f := range j.Hidden {
			b.WriteString(lint.GitHubCommand("error", rules[0], 1, fmt.Sprintf("change hidden by a rule: %s %s: %s", f.Resource, f.Path, f.Evidence)))
		}
		for _, s := range j.Stale {
			b.WriteString(lint.GitHubCommand("error", s.File, s.Line, "generated rules are stale: regenerate with the command in the file's header"))
		}
		for _, f := range j.Drift {
			b.WriteString(lint.GitHubCommand(driftLevel, rules[0], 1, fmt.Sprintf("drift in the live objects: %s %s", f.Resource, f.Path)))
		}
		if err := lint.Write(&b, findings, lint.FormatGitHub); err != nil {
			return err
		}
	default:
		for _, f := range j.Residual {
			fmt.Fprintf(&b, "residual ghost diff: %s: %s\n", f.what(), f.Evidence)
		}
		for _, u := range res.Unpaired {
			fmt.Fprintf(&b, "pending create, not compared: %s has no live counterpart (kapp would create it)%s\n", u.Resource, hint(u.Hint))
		}
		for _, f := range j.Unknown {
			fmt.Fprintf(&b, "unknown: kapp still updates %s for %s: %s\n", f.Resource, f.Path, f.Evidence)
		}
		for _, f := range j.Hidden {
			fmt.Fprintf(&b, "hidden: %s %s: %s\n", f.Resource, f.Path, f.Evidence)
		}
		for _, s := range j.Stale {
			fmt.Fprintf(&b, "stale: %s would change (line %d):\n%s", s.File, s.Line, s.Diff)
		}
		for _, f := range j.Drift {
			fmt.Fprintf(&b, "%s: drift: %s %s: %s\n", driftLevel, f.Resource, f.Path, f.Evidence)
		}
		for _, f := range j.Adoption {
			fmt.Fprintf(&b, "adoption (kapp changes it once, when it takes the object over): %s %s: %s\n", f.Resource, f.Path, f.Evidence)
		}
		if err := lint.Write(&b, findings, lint.FormatText); err != nil {
			return err
		}
		// one summary line, lint's counts in it
		pending := ""
		if n := len(j.PendingCreates); n > 0 {
			pending = ", " + words.Count(n, "pending create")
		}
		if n := len(j.Hidden); n > 0 {
			pending += ", " + words.Count(n, "declared field") + " hidden by the rules"
		}
		fmt.Fprintf(&b, "check: kapp keeps %d/%d paired resources%s; %s, %s, %s, %s, lint: %s\n", j.Kept, j.Paired, pending,
			words.Count(len(j.Residual), "residual ghost diff"), words.Count(len(j.Unknown), "unknown field"),
			words.Count(len(j.Stale), "stale generated file"), words.Count(len(j.Drift), "drift "+driftLevel), lint.Summary(findings))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// hint appends a hint to a line, when there is one.
func hint(h string) string {
	if h == "" {
		return ""
	}
	return "; " + h
}

// hiddenEvidence says which rule hides a declared field, and why that is an error.
func hiddenEvidence(h generator.Hidden) string {
	return fmt.Sprintf("a change made in Git is hidden by %s: kapp reports no update when the value changes, and no manager other than the manifest's applier owns the field", h.Rule)
}
