package argocd

import (
	"io"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
)

// Evidence of the findings only this target makes.
const (
	outOfSync = "Argo CD shows the resource OutOfSync under the ignores for this field, and every difference it shows there is a ghost"
	hiddenBy  = "a change made in Git to this declared value does not show in Argo CD under the ignores, and no controller owns it"
	// a change made in Git to a value a controller rewrote (classify: pending, its owner named)
	hiddenOwned = "a change made in Git to this declared value does not show in Argo CD under the ignores; "
)

// Findings are what the verdict, the objects no pair holds (Unpaired) and the differences Argo CD
// still shows come to, in check's
// kinds of finding (verdict.Kind) and their order: the server version's warning; the fields
// Argo CD still shows under the ignores on a resource whose differences are all ghosts
// (residual, failing); the differences no ignore may take, by class (unknown, drift, pending,
// adoption), each a warning (a sync applies them); residual for a ghost the manifest declares or
// in a list item without keys, failing (no sync ends it: the manifest must change); the declared
// values the ignores hide (hidden, failing).
func Findings(left []Left, v Verification, unpaired []verdict.Finding, serverVersion string) []verdict.Finding {
	var fs []verdict.Finding
	if serverVersion != "" {
		fs = append(fs, verdict.Finding{Kind: verdict.KindServerVersion, Evidence: serverVersion})
	}
	fs = append(fs, unpaired...)
	for _, p := range v.OutSync {
		fs = append(fs, verdict.Finding{Kind: verdict.KindResidual, Resource: p.Resource, Path: p.Path, Class: p.Class, Evidence: outOfSync, Fails: true})
	}
	hidden := map[Problem]bool{}
	for _, p := range v.Hidden {
		hidden[Problem{Resource: p.Resource, Path: p.Path}] = true
	}
	for _, l := range left {
		if hidden[Problem{Resource: l.Resource, Path: l.Path}] { // one field, one verdict: hidden says it
			continue
		}
		evidence, fails := "Argo CD shows it, not ignored: "+l.Reason, false
		switch {
		case l.Hidden:
			evidence = "Argo CD does not show it under the ignores, which hide it though none should: " + l.Reason
		case l.Kind == verdict.KindImmutable: // the sync fails on it
			fails = true
		case l.Kind == verdict.KindResidual:
			// a ghost the manifest must fix: the resource stays OutOfSync after every sync
			evidence, fails = "Argo CD keeps showing the resource OutOfSync for it, and no ignore may take it: "+l.Reason, true
		}
		fs = append(fs, verdict.Finding{Kind: l.Kind, Resource: l.Resource, Path: l.Path, Class: l.Class, Evidence: evidence, Fails: fails})
	}
	for _, p := range v.Hidden {
		evidence := hiddenBy
		if p.Owner != "" {
			evidence = hiddenOwned + p.Owner + " owns the field, which exempts only the value Argo CD last applied, not a new one from Git"
		}
		evidence += syncEvidence(p)
		fs = append(fs, verdict.Finding{Kind: verdict.KindHidden, Resource: p.Resource, Path: p.Path, Class: p.Class, Evidence: evidence, Fails: true,
			File: p.At.File, Line: p.At.Line})
	}
	order := verdict.Kinds()
	slices.SortStableFunc(fs, func(a, b verdict.Finding) int { return slices.Index(order, a.Kind) - slices.Index(order, b.Kind) })
	return fs
}

// Report is what check --target argocd writes, and generate --target argocd's verdict.
type Report struct {
	Summary  string
	Findings []verdict.Finding
	Lints    []lint.Finding
	// Notes: the github format's annotations before the findings (notice, warning); the other
	// formats leave them to stderr (Note.String).
	Notes []Note
	Verification
	Ignores int
}

// Write writes r in format f with the verdict stage's renderers (verdict.Write), as check's kapp
// target writes them, the github format r's notes first; the JSON format holds Argo CD's counts
// too. GitHub annotations of a finding written nowhere point at annotate (the first --rules file,
// the file generate writes).
func (r Report) Write(w io.Writer, f format.Format, annotate string) error {
	vr := verdict.Report{Findings: r.Findings, Lints: r.Lints, Summary: r.Summary, Still: "Argo CD still shows", Paired: r.Paired, Kept: r.Kept, Severity: true,
		Labels: map[verdict.Kind]string{verdict.KindPending: "pending change from Git (Argo CD syncs it)",
			verdict.KindImmutable: "pending change from Git that Argo CD's sync fails on (the API server refuses the update)",
			verdict.KindAdoption:  "adoption (another tool's bookkeeping on an object Argo CD took over)"}}
	if f == format.GitHub {
		var b strings.Builder
		for _, n := range r.Notes {
			level := "notice"
			if n.Warning {
				level = "warning"
			}
			b.WriteString(lint.GitHubCommand(level, n.At.File, n.At.Line, n.Text))
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	if f != format.JSON {
		return verdict.Write(w, f, vr, annotate)
	}
	j, err := verdict.NewJSON(vr)
	if err != nil {
		return err
	}
	out := JSON{Version: j.Version, Target: "argocd", Ignores: r.Ignores, Ghost: r.Ghost, InSync: r.InSync, Mutation: r.Mutation,
		Masked: []verdict.FieldJSON{}, JSON: j}
	for _, p := range r.Masked {
		out.Masked = append(out.Masked, verdict.FieldJSON{Resource: p.Resource.String(), Path: p.Path, Class: p.Class,
			Evidence: maskedEvidence(p)})
	}
	return verdict.EncodeJSON(w, out)
}

// JSON is check --target argocd --output json (README: the schema): Argo CD's verdict's counts,
// then check's kinds of finding and lint's findings as its kapp target's JSON holds them
// (paired: the resources compared, kept: those in sync under the ignores).
type JSON struct {
	Version  int    `json:"version"`
	Target   string `json:"target"` // argocd
	Ignores  int    `json:"ignores"`
	Ghost    int    `json:"ghost"`    // resources Argo CD shows OutOfSync for ghost diffs only
	InSync   int    `json:"inSync"`   // of those, in sync under the ignores
	Mutation int    `json:"mutation"` // declared values changed in turn
	// Masked are declared values the ignores hide where a controller owns the field.
	Masked []verdict.FieldJSON `json:"masked"`
	verdict.JSON
}
