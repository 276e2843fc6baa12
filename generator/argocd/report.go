package argocd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
)

// Evidence of the findings only this target makes.
const (
	outOfSync = "Argo CD shows the resource OutOfSync under the ignores for this field, and every difference it shows there is a ghost"
	hiddenBy  = "a change made in Git to this declared value does not show in Argo CD under the ignores, and no controller owns it"
)

// Findings are what the verdict and the differences Argo CD still shows come to, in check's
// kinds of finding (verdict.Kind) and their order: the server version's warning; the fields
// Argo CD still shows under the ignores on a resource whose differences are all ghosts
// (residual, failing); the differences no ignore may take, by class (unknown, drift, pending,
// adoption; residual for a ghost the manifest declares or in a list item without keys, which the
// manifest must fix), each a warning (a sync applies them); the declared values the ignores hide
// (hidden, failing).
func Findings(left []Left, v Verification, serverVersion string) []verdict.Finding {
	var fs []verdict.Finding
	if serverVersion != "" {
		fs = append(fs, verdict.Finding{Kind: verdict.KindServerVersion, Evidence: serverVersion})
	}
	for _, p := range v.OutSync {
		fs = append(fs, verdict.Finding{Kind: verdict.KindResidual, Resource: p.Resource, Path: p.Path, Class: p.Class, Evidence: outOfSync, Fails: true})
	}
	for _, l := range left {
		fs = append(fs, verdict.Finding{Kind: l.Kind, Resource: l.Resource, Path: l.Path, Class: l.Class, Evidence: "Argo CD shows it, not ignored: " + l.Reason})
	}
	for _, p := range v.Hidden {
		fs = append(fs, verdict.Finding{Kind: verdict.KindHidden, Resource: p.Resource, Path: p.Path, Class: p.Class, Evidence: hiddenBy, Fails: true})
	}
	order := verdict.Kinds()
	slices.SortStableFunc(fs, func(a, b verdict.Finding) int { return slices.Index(order, a.Kind) - slices.Index(order, b.Kind) })
	return fs
}

func severity(f verdict.Finding) string {
	if f.Fails {
		return "error"
	}
	return "warning"
}

// sentence is a finding as the text and github formats write it: its kind's label, what it is
// about, its evidence.
func sentence(f verdict.Finding) (string, error) {
	label := f.Kind.Label()
	if label == "" {
		return "", fmt.Errorf("argo cd: no label for findings of kind %q", f.Kind)
	}
	if f.Kind == verdict.KindServerVersion {
		return label + ": " + escape.Lines(f.Evidence), nil
	}
	what := escape.Text(f.Resource.String())
	if f.Path != "" {
		what += " " + escape.Text(f.Path)
	}
	if f.Class != "" {
		what += " (" + escape.Text(f.Class) + ")"
	}
	return label + ": " + what + ": " + escape.Lines(f.Evidence), nil
}

// Report is what check --target argocd writes, and generate --target argocd's verdict.
type Report struct {
	Summary  string
	Findings []verdict.Finding
	Lints    []lint.Finding
	Verification
	Ignores int
}

// Write writes r in format f (text, json or github, as check's kapp target writes them); GitHub
// annotations of a finding written nowhere point at annotate (the first --rules file), those of
// a run's warning at none.
func (r Report) Write(w io.Writer, f format.Format, annotate string) error {
	switch f {
	case format.Text:
		return r.writeText(w)
	case format.JSON:
		return r.writeJSON(w)
	case format.GitHub:
		return r.writeGitHub(w, annotate)
	}
	return format.Unknown(string(f), format.Report())
}

func (r Report) writeText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.Summary + "\n")
	for _, f := range r.Findings {
		s, err := sentence(f)
		if err != nil {
			return err
		}
		if f.Kind == verdict.KindServerVersion || f.Kind == verdict.KindDrift { // the level says which
			s = severity(f) + ": " + s
		}
		b.WriteString(s + "\n")
	}
	if err := lint.Write(&b, r.Lints, lint.FormatText); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r Report) writeGitHub(w io.Writer, annotate string) error {
	var b strings.Builder
	for _, f := range r.Findings {
		s, err := sentence(f)
		if err != nil {
			return err
		}
		file, line := annotate, 1
		if f.Kind == verdict.KindServerVersion || annotate == "" {
			file, line = "", 0
		}
		b.WriteString(lint.GitHubCommand(severity(f), file, line, s))
	}
	if err := lint.Write(&b, r.Lints, lint.FormatGitHub); err != nil {
		return err
	}
	b.WriteString("::notice::" + escape.GitHubData(r.Summary) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON is check --target argocd --output json (README: the schema): check's kinds of finding, as
// its kapp target's JSON holds them, Argo CD's verdict's counts, and the lint findings.
type JSON struct {
	Version  int    `json:"version"`
	Target   string `json:"target"` // argocd
	Ignores  int    `json:"ignores"`
	Ghost    int    `json:"ghost"`    // resources Argo CD shows OutOfSync for ghost diffs only
	InSync   int    `json:"inSync"`   // of those, in sync under the ignores
	Mutation int    `json:"mutation"` // declared values changed in turn
	// Masked are declared values the ignores hide where a controller owns the field.
	Masked        []verdict.FieldJSON `json:"masked"`
	ServerVersion []verdict.FieldJSON `json:"serverVersion"`
	Residual      []verdict.FieldJSON `json:"residual"`
	Unknown       []verdict.FieldJSON `json:"unknown"`
	Hidden        []verdict.FieldJSON `json:"hidden"`
	Drift         []verdict.FieldJSON `json:"drift"`
	Pending       []verdict.FieldJSON `json:"pending"`
	Adoption      []verdict.FieldJSON `json:"adoption"`
	Lint          []lint.Finding      `json:"lint"`
}

func (r Report) writeJSON(w io.Writer) error {
	empty := func() []verdict.FieldJSON { return []verdict.FieldJSON{} }
	j := JSON{Version: 1, Target: "argocd", Ignores: r.Ignores, Ghost: r.Ghost, InSync: r.InSync, Mutation: r.Mutation,
		Masked: empty(), ServerVersion: empty(), Residual: empty(), Unknown: empty(), Hidden: empty(), Drift: empty(),
		Pending: empty(), Adoption: empty(), Lint: r.Lints}
	if j.Lint == nil {
		j.Lint = []lint.Finding{}
	}
	for _, p := range r.Masked {
		j.Masked = append(j.Masked, verdict.FieldJSON{Resource: p.Resource.String(), Path: p.Path, Class: p.Class,
			Evidence: "a change made in Git to this declared value does not show in Argo CD under the ignores; a controller owns the field"})
	}
	for _, f := range r.Findings {
		fj := verdict.FieldJSON{Resource: f.Resource.String(), Path: f.Path, Class: f.Class, Evidence: f.Evidence, Severity: severity(f)}
		var to *[]verdict.FieldJSON
		switch f.Kind {
		case verdict.KindServerVersion:
			fj.Resource, to = "", &j.ServerVersion
		case verdict.KindResidual:
			to = &j.Residual
		case verdict.KindUnknown:
			to = &j.Unknown
		case verdict.KindHidden:
			to = &j.Hidden
		case verdict.KindDrift:
			to = &j.Drift
		case verdict.KindPending:
			to = &j.Pending
		case verdict.KindAdoption:
			to = &j.Adoption
		default:
			return fmt.Errorf("argo cd: no json rendering for findings of kind %q", f.Kind)
		}
		*to = append(*to, fj)
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
