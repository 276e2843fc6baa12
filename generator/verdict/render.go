package verdict

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/textwrap"
	"github.com/rebasegen/rebasegen/internal/words"
)

// Report is what one run of generate or check found, as every output format renders it: the
// findings of every kind (Kinds), lint's, and the run's summary.
type Report struct {
	Findings []Finding
	Lints    []lint.Finding
	Summary  string // one line: the text format's last, the github format's notice
	// Still is what the applier still does to a resource a finding names as a whole or for a field
	// nothing explains: "kapp still updates" when empty, "Argo CD still shows".
	Still        string
	Paired, Kept int // the JSON format's counts: paired resources, and those the applier leaves alone
	// Severity: the JSON format gives every finding its severity, not only drift's and
	// adoption's (a target whose kinds fail otherwise than check's do: Argo CD's unknown fields)
	Severity bool
	// Labels: a target's own labels of the kinds whose Label names kapp (Argo CD syncs a pending
	// change), in the text and github formats.
	Labels map[Kind]string
}

// CheckReport is check's report: the verdict's findings fs, lint's, and check's summary line.
func CheckReport(v *Verdict, fs []Finding, lints []lint.Finding) Report {
	return Report{Findings: fs, Lints: lints, Summary: summary(v, fs, lints), Paired: v.Paired, Kept: v.Kept}
}

// Write writes r in format f: one renderer per format, each rendering every kind of finding
// (Kinds), then lint's findings in the same format. GitHub annotations of a finding written
// nowhere (a field, a resource) point at annotate: the rules file an author fixes.
func Write(w io.Writer, f format.Format, r Report, annotate string) error {
	switch f {
	case format.JSON:
		j, err := NewJSON(r)
		if err != nil {
			return err
		}
		return EncodeJSON(w, j)
	case format.GitHub:
		return writeGitHub(w, r, annotate)
	default:
		return writeText(w, r)
	}
}

// severity is a finding's level in the github format and JSON: error when it fails the gate.
func severity(f Finding) string {
	if f.Fails {
		return "error"
	}
	return "warning"
}

// what names the field, or the resource when the applier's engine found it changed as a whole.
func what(f Finding, still string) string {
	if f.Path == "" {
		return resource(f) + " (" + still + " it)"
	}
	return fmt.Sprintf("%s %s (%s)", resource(f), escape.Text(f.Path), escape.Text(f.Class))
}

// resource and path are a finding's resource and field as the text and github formats show them
// (escape.Text: names come from the inputs).
func resource(f Finding) string { return escape.Text(f.Resource.String()) }
func path(f Finding) string     { return escape.Text(f.Path) }

// evidence is a finding's evidence on one line: it holds names from the inputs (managers, rule
// paths), whose line breaks would forge lines of their own. Only kapp's diff, the evidence of a
// resource its engine still updates as a whole, keeps its lines, each escaped.
func evidence(f Finding) string {
	if f.Kind == KindResidual && f.Path == "" {
		return escape.Lines(f.Evidence)
	}
	return escape.Text(f.Evidence)
}

// subject is what a finding is about, after its kind's label, in the text and github formats.
func subject(f Finding, still string) string {
	switch f.Kind {
	case KindResidual:
		return what(f, still)
	case KindPendingCreate, KindPendingDelete, KindUnjudged, KindOwnership, KindDeployFails:
		return resource(f)
	case KindUnknown:
		return still + " " + resource(f) + " for " + path(f)
	case KindServerVersion: // about the whole run: the sentence is the subject
		return evidence(f)
	case KindStale:
		s := fmt.Sprintf("%s would change (line %d)", escape.Text(f.File), f.Line)
		if len(f.Inputs) > 0 { // what to give, or regenerate with
			s += "; the inputs differ from its Regenerate line's: " + escape.Text(strings.Join(f.Inputs, ", "))
		}
		return s
	}
	return resource(f) + " " + path(f)
}

// line is a finding as the text and github formats begin it: its kind's label, then its subject.
func line(f Finding, still string) (string, error) {
	return labelled(f, still, f.Kind.Label())
}

// line is f as r's text and github formats begin it, with r's label for its kind.
func (r Report) line(f Finding) (string, error) {
	if l, ok := r.Labels[f.Kind]; ok {
		return labelled(f, r.Still, l)
	}
	return line(f, r.Still)
}

func labelled(f Finding, still, label string) (string, error) {
	if label == "" {
		return "", fmt.Errorf("no label for findings of kind %q", f.Kind)
	}
	if still == "" {
		still = "kapp still updates"
	}
	return label + ": " + subject(f, still), nil
}

// writeText writes r as text, the prose wrapped where w wraps lines and every diff (a stale file's,
// kapp's excerpt under a residual) never: each line of a diff whole (textwrap.WriteVerbatim).
func writeText(w io.Writer, r Report) error {
	var b strings.Builder
	verbatim := func(s string) error { // the prose so far, then s
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		b.Reset()
		return textwrap.WriteVerbatim(w, s)
	}
	for _, f := range r.Findings {
		l, err := r.line(f)
		if err != nil {
			return err
		}
		switch {
		case f.Kind == KindStale:
			fmt.Fprintf(&b, "%s:\n", l)
			if err := verbatim(escape.Lines(f.Diff)); err != nil {
				return err
			}
			if f.InPlace != "" {
				fmt.Fprintf(&b, "%s\n", escape.Text(inPlaceHint(f.InPlace)))
			}
		case f.Kind == KindDrift: // a warning unless --fail-on-drift: the level says which
			fmt.Fprintf(&b, "%s: %s: %s\n", severity(f), l, evidence(f))
		case f.Kind == KindServerVersion:
			fmt.Fprintf(&b, "%s: %s\n", severity(f), l)
		case f.Kind == KindResidual && f.Path == "" && strings.Contains(f.Evidence, "\n"): // the applier's diff after its first line
			said, diff, _ := strings.Cut(evidence(f), "\n")
			fmt.Fprintf(&b, "%s: %s\n", l, said)
			if err := verbatim(diff + "\n"); err != nil {
				return err
			}
		default:
			fmt.Fprintf(&b, "%s: %s\n", l, evidence(f))
		}
	}
	if err := lint.Write(&b, r.Lints, lint.FormatText); err != nil {
		return err
	}
	b.WriteString(r.Summary + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// summary is check's one summary line, lint's counts in it.
func summary(v *Verdict, fs []Finding, lints []lint.Finding) string {
	n := map[Kind]int{}
	const servedUnknown Kind = "served-unknown" // counted apart: drift findings (Finding.ServedUnknown)
	for _, f := range fs {
		n[f.Kind]++
		if f.ServedUnknown {
			n[servedUnknown]++
		}
	}
	pending := ""
	if k := n[KindPendingCreate]; k > 0 {
		pending = ", " + words.Count(k, "pending create")
	}
	if k := n[KindPendingDelete]; k > 0 {
		pending += ", " + words.Count(k, "pending delete")
	}
	misplaced := 0 // not declared: an item's value written onto another (Hidden.Misplaced)
	for _, h := range v.Hidden {
		if h.Misplaced {
			misplaced++
		}
	}
	if k := n[KindHidden] - misplaced; k > 0 {
		pending += ", " + words.Count(k, "declared field") + " hidden by the rules"
	}
	if misplaced > 0 {
		pending += ", " + words.Count(misplaced, "value") + " copied by index onto another list item"
	}
	if k := n[KindRuleUnjudged]; k > 0 {
		pending += ", " + words.Count(k, "rule") + " not judged on a resource"
	}
	if k := n[KindPending]; k > 0 {
		pending += ", " + words.Count(k, "pending change") + " from Git, applied on deploy"
	}
	if k := n[KindImmutable]; k > 0 {
		pending += ", " + words.Count(k, "pending change") + " from Git kapp's deploy fails on"
	}
	if k := n[KindAdoption]; k > 0 {
		pending += ", " + words.Count(k, "adoption change")
	}
	if k := n[KindUnjudged]; k > 0 {
		pending += fmt.Sprintf(", %d not judged (Secret values redacted at capture)", k)
	}
	if k := n[KindOwnership]; k > 0 {
		pending += ", " + words.Count(k, "object") + " of another app, kapp's deploy fails"
	}
	if k := n[KindDeployFails]; k > 0 {
		pending += ", " + words.Count(k, "change") + " kapp's deploy fails on"
	}
	if k := n[KindUnserved]; k > 0 {
		pending += ", " + words.Count(k, "apiVersion") + " the server does not serve, kapp's deploy fails"
	}
	if k := n[servedUnknown]; k > 0 {
		pending += ", " + words.Count(k, "apiVersion") + " not judged (whether the server serves it is not known: kapp's deploy fails if it does not)"
	}
	driftLevel := "warning"
	if slices.ContainsFunc(fs, func(f Finding) bool { return f.Kind == KindDrift && f.Fails }) {
		driftLevel = "error"
	}
	return fmt.Sprintf("check: kapp keeps %d/%d paired resources%s; %s, %s, %s, %s, lint: %s", v.Kept, v.Paired, pending,
		words.Count(n[KindResidual], "residual ghost diff"), words.Count(n[KindUnknown], "unknown field"),
		words.Count(n[KindStale], "stale generated file"), words.Count(n[KindDrift], "drift "+driftLevel), lint.Summary(lints))
}

// place is where a finding is located, as the github format annotates it and the JSON format
// carries it: a stale file's first differing line, the rule hiding a change or not judged, where a
// drift, a pending change or create, or a change kapp's deploy fails on was made (the desired
// document, a template's or values file's line; none when the inputs do not tell: not the rules
// file, which did not cause it). No file for a finding no file caused (the server's version; a
// pending delete, whose object has no document: newcomer7 N7-9 g). placed is false for any other
// finding (residual, unknown, adoption, a change the rules in force hide together): its annotation
// points at the rules file, which the author fixes.
func place(f Finding) (file string, line int, placed bool) {
	switch f.Kind {
	case KindStale, KindDrift, KindPending, KindPendingCreate, KindImmutable, KindUnjudged, KindOwnership, KindDeployFails, KindUnserved:
		return f.File, f.Line, true
	case KindHidden, KindRuleUnjudged:
		return f.File, f.Line, f.File != ""
	case KindServerVersion, KindPendingDelete:
		return "", 0, true
	}
	return "", 0, false
}

// writeGitHub writes workflow commands, each carrying its finding's evidence as the text format
// does (a CI reader has nothing else: whether kapp reverts a drift, keeps it by a rule, or why a
// field differs); annotations point at the rules file (that is what the author fixes), a stale
// file's at its first differing line, a hidden change's at the rule hiding it.
func writeGitHub(w io.Writer, r Report, rules string) error {
	var b strings.Builder
	for _, f := range r.Findings {
		msg, err := r.line(f)
		if err != nil {
			return err
		}
		if f.Kind != KindServerVersion { // whose sentence is its subject
			msg += ": " + evidence(f)
		}
		file, at, placed := place(f)
		if !placed {
			file, at = rules, 1
		}
		b.WriteString(lint.GitHubCommand(severity(f), file, at, msg))
	}
	if err := lint.Write(&b, r.Lints, lint.FormatGitHub); err != nil {
		return err
	}
	// the summary, so that a passing run says so in the job's log too
	b.WriteString("::notice::" + escape.GitHubData(r.Summary) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteGenerate writes, in text, what generate's verdict says besides its summary: every field
// for which kapp still updates a resource, with its class; the desired objects not compared; and,
// when the verification failed, the ghost diffs left, the changes hidden, the rules in force not
// judged and the objects kapp's deploy fails on (another app's), as check writes them.
func WriteGenerate(w io.Writer, v *Verdict) error {
	var b strings.Builder
	for _, u := range v.Updates {
		for _, f := range u.Fields {
			fmt.Fprintf(&b, "kapp still updates %s: %s %s: %s\n", escape.Text(u.Resource.String()), escape.Text(f.Label()), escape.Text(f.Path.String()), escape.Text(f.Evidence))
		}
	}
	for _, u := range v.Unpaired {
		fmt.Fprintf(&b, "not compared: %s has no live counterpart (kapp would create it)%s\n", escape.Text(u.Resource.String()), hintSuffix(escape.Text(u.Hint)))
	}
	for _, f := range v.Findings(Gate{}) {
		if f.Kind != KindResidual && f.Kind != KindHidden && f.Kind != KindRuleUnjudged && f.Kind != KindOwnership && f.Kind != KindDeployFails && f.Kind != KindUnserved {
			continue
		}
		l, err := line(f, "")
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s: %s\n", l, evidence(f))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
