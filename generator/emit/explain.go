// Package emit writes rebasegen's outputs: the explain report (text, JSON) and the generated
// rules (kapp Config, ytt file, Secret).
package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/textwrap"
	"github.com/rebasegen/rebasegen/internal/words"
)

// What explain says of the live objects no desired object pairs with (classify.Report).
const (
	deletedText  = "live only, the app's: kapp deletes on deploy"
	liveOnlyText = "live only, not kapp's to delete (a controller's: no " + kappconv.IdentityAnnotation + " naming it; or not labelled with the app's " + kappconv.AppLabel + ")"
)

// liveOnlyOf is what explain says of rep's live-only objects. With nothing paired the app's
// kapp.k14s.io/app is unknown, so kapp's own objects are live only too: saying why a controller's
// would be is wrong (newcomer walkthrough 6, N6-4: a wrong -n).
func liveOnlyOf(rep *classify.Report) string {
	if len(rep.Resources) == 0 {
		return "live only, not compared: no desired object pairs, so the app's " + kappconv.AppLabel + " is not known, nor whether kapp deletes it on deploy"
	}
	return liveOnlyText
}

// ExplainSchemaVersion is the version of the JSON explain schema; it changes only with an
// incompatible change of the fields below.
const ExplainSchemaVersion = 1

// ExplainJSON is the documented JSON form of an explain report.
type ExplainJSON struct {
	Version   int            `json:"version"`
	Resources []ResourceJSON `json:"resources"`
	Created   []string       `json:"created"`
	Deleted   []string       `json:"deleted"`
	LiveOnly  []string       `json:"liveOnly"`
	Summary   map[string]int `json:"summary"`
}

type ResourceJSON struct {
	Group      string         `json:"group"`
	Kind       string         `json:"kind"`
	Namespace  string         `json:"namespace,omitempty"`
	Name       string         `json:"name"`
	APIVersion string         `json:"apiVersion"`
	Applier    string         `json:"applier,omitempty"`
	Fields     []FieldJSON    `json:"fields"`
	Ignored    map[string]int `json:"ignored,omitempty"` // metadata/status differences that are not findings
}

type FieldJSON struct {
	Path                  string `json:"path"`
	Class                 string `json:"class"`
	Owner                 string `json:"owner,omitempty"`
	Change                string `json:"change"`
	Desired               *any   `json:"desired,omitempty"` // null: the object holds null; absent: it holds no value
	Live                  *any   `json:"live,omitempty"`
	Evidence              string `json:"evidence"`
	CoveredByKappDefault  bool   `json:"coveredByKappDefault"`
	CoveredByPackageRules bool   `json:"coveredByPackageRules,omitempty"`
	Warning               string `json:"warning,omitempty"`
	KappView              bool   `json:"kappView,omitempty"`
	// ChangedInGit and Original: a drift whose field Git changed too since the applier's last
	// apply (classify.GitChange), and the value that apply held there (absent where it held none).
	ChangedInGit bool `json:"changedInGit,omitempty"`
	Original     *any `json:"original,omitempty"`
}

// ToJSON converts a report to its JSON form.
func ToJSON(rep *classify.Report) ExplainJSON {
	out := ExplainJSON{Version: ExplainSchemaVersion, Resources: []ResourceJSON{}, Created: ids(rep.Created), Deleted: ids(rep.Deleted), LiveOnly: ids(rep.LiveOnly), Summary: map[string]int{}}
	for _, c := range classify.Classes() {
		out.Summary[string(c)] = rep.Counts()[c]
	}
	for _, c := range []classify.Class{classify.Adoption, classify.Pending, classify.Operational} {
		if n := rep.Counts()[c]; n > 0 {
			out.Summary[string(c)] = n
		}
	}
	for _, r := range rep.Resources {
		rj := ResourceJSON{Group: r.ID.Group, Kind: r.ID.Kind, Namespace: r.ID.Namespace, Name: r.ID.Name,
			APIVersion: r.Live.APIVersion, Applier: r.Applier, Fields: []FieldJSON{}, Ignored: r.Noise}
		for _, f := range r.Findings {
			d, l := holds(f.Change)
			fj := FieldJSON{Path: f.Path.String(), Class: string(f.Class), Owner: f.Owner,
				Change: string(f.Change), Desired: held(f.Desired, d), Live: held(f.Live, l), Evidence: f.Evidence,
				CoveredByKappDefault: f.CoveredByKappDefault, CoveredByPackageRules: f.CoveredByPackageRules, Warning: f.Warning, KappView: f.KappView}
			if g := f.GitToo; g != nil {
				fj.ChangedInGit, fj.Original = true, held(g.Original, g.Held)
			}
			rj.Fields = append(rj.Fields, fj)
		}
		out.Resources = append(out.Resources, rj)
	}
	return out
}

// held is v where the object holds it (a null too), nil where it holds no value: a finding's
// values are nil for both, its change says which.
func held(v any, present bool) *any {
	if !present && v == nil {
		return nil
	}
	return &v
}

func ids(docs []load.Doc) []string {
	out := []string{}
	for _, d := range docs {
		out = append(out, pair.Identity{Group: d.GroupKind().Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}.String())
	}
	return out
}

// WriteExplainJSON writes the report as indented JSON.
func WriteExplainJSON(w io.Writer, rep *classify.Report) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ToJSON(rep)); err != nil {
		return err
	}
	_, err := w.Write(escape.JSON(b.Bytes()))
	return err
}

// Palette colours classes in text output; the zero value prints no colour.
type Palette struct{ On bool }

var classColour = map[classify.Class]string{
	classify.Defaulted: "\x1b[36m", classify.Calculated: "\x1b[34m", classify.KappArtifact: "\x1b[34m", classify.Controller: "\x1b[33m",
	classify.Drift: "\x1b[31m", classify.Unknown: "\x1b[35m", classify.Pending: "\x1b[32m",
}

func (p Palette) class(f classify.Finding) string {
	if !p.On {
		return escape.Text(f.Label()) // a controller's label holds its manager's name
	}
	return classColour[f.Class] + escape.Text(f.Label()) + "\x1b[0m"
}

// WriteExplainText writes a compact table per resource, then a summary line per class. With width
// > 0 (a terminal's), a resource whose rows would be wider moves each row's evidence to an indented
// line of its own, wrapped to the width, as kubectl describe does; width 0 keeps full lines.
func WriteExplainText(w io.Writer, rep *classify.Report, pal Palette, width int) error {
	b := &strings.Builder{}
	for _, r := range rep.Resources {
		applier := r.Applier
		switch {
		case applier == "" && r.KappMarked:
			applier = "kapp, per its kapp.k14s.io labels and annotations; without managedFields: kubectl get --show-managed-fields says who set each field"
		case applier == "":
			applier = "no known applier"
		}
		// continued 4 columns in: from the margin, "kapp)" would read as a resource of its own
		fmt.Fprintln(b, textwrap.Hanging(fmt.Sprintf("%s (%s, applied by %s)", escape.Text(r.ID.String()), escape.Text(r.Live.APIVersion), escape.Text(applier)), width, 4))
		if len(r.Findings) == 0 {
			b.WriteString("  no differences\n")
		}
		table := findingsTable(r.Findings, pal)
		if width > 0 && widest(table) > width {
			// aligned columns are what makes rows wide (one long path widens them all)
			var rows strings.Builder // appended, not concatenated: a resource may have thousands of rows
			for _, f := range r.Findings {
				rows.WriteString(narrowRow(escape.Text(f.Path.String()), pal.class(f)+covered(f), values(f), escape.Text(f.Evidence), width))
			}
			table = rows.String()
		}
		b.WriteString(table)
		for _, f := range r.Findings {
			if f.Warning != "" {
				fmt.Fprintln(b, pathLine("  ! ", escape.Text(f.Path.String()), ": "+escape.Text(f.Warning), width))
			}
		}
		if n := noiseLine(r.Noise); n != "" {
			fmt.Fprintln(b, textwrap.Line("  ("+escape.Text(n)+")", width))
		}
		b.WriteByte('\n')
	}
	for _, o := range ids(rep.Created) {
		fmt.Fprintln(b, textwrap.Hanging(escape.Text(o)+": not among the live objects (kapp would create it)", width, 4))
	}
	for _, o := range ids(rep.Deleted) {
		fmt.Fprintln(b, textwrap.Hanging(escape.Text(o)+": "+deletedText, width, 4))
	}
	for _, o := range ids(rep.LiveOnly) {
		fmt.Fprintln(b, textwrap.Hanging(escape.Text(o)+": "+liveOnlyOf(rep), width, 4))
	}
	writeSummary(b, rep, width)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSummary is explain's last line: the resources and the findings of each class.
func writeSummary(b *strings.Builder, rep *classify.Report, width int) {
	counts := rep.Counts()
	var parts []string
	for _, c := range classify.Classes() {
		parts = append(parts, fmt.Sprintf("%s %d", c, counts[c]))
	}
	if n := counts[classify.Adoption]; n > 0 {
		parts = append(parts, fmt.Sprintf("adoption %d (kapp changes them once, when it takes the objects over)", n))
	}
	drifted := rep.GitToo() // drift rows, pending changes all the same
	if n := counts[classify.Pending] + drifted; n > 0 {
		also := ""
		if drifted > 0 {
			also = fmt.Sprintf("; %d of them to a field that drifted too, its row drift", drifted)
		}
		parts = append(parts, fmt.Sprintf("pending %d (changes made in Git: this deploy applies them%s)", n, also))
	}
	if n := counts[classify.Operational]; n > 0 {
		parts = append(parts, fmt.Sprintf("operational %d (stamped on purpose at run time: ruled, the manifest's value wins; --no-operational: drift)", n))
	}
	fmt.Fprintln(b, textwrap.Hanging(fmt.Sprintf("Summary: %s, %s; %s", words.Count(len(rep.Resources), "resource"), strings.Join(parts, ", "), ValuesOrder), width, 4))
}

// ValuesOrder says how explain's rows show a field's two values (values), in the summary every
// text report ends with: a newcomer read "1 -> 2" backwards, as what the deploy changes
// (newcomer14 N14-6). README's explain section and explain's help say the same.
const ValuesOrder = "values: desired -> live, - where the object lacks the field"

// findingsTable is one aligned row per finding: path, class, desired -> live, evidence.
func findingsTable(findings []classify.Finding, pal Palette) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, f := range findings {
		fmt.Fprintf(tw, "  %s\t%s%s\t%s\t%s\n", escape.Text(f.Path.String()), pal.class(f), covered(f), values(f), escape.Text(f.Evidence))
	}
	tw.Flush()
	return b.String()
}

// narrowRow lays one field out for width: path, class and values on one line when they fit, else
// the path on lines of its own (a long path must not split the values); the evidence below.
func narrowRow(path, class, values, evidence string, width int) string {
	head := "  " + path + "  " + class + "  " + values
	if widest(head) > width {
		head = pathLine("  ", path, "", width) + "\n" + classValues(class, values, width)
	}
	return head + "\n" + textwrap.Line("      "+evidence, width) + "\n"
}

// classValues is a row's class and values from column 6, wrapped to width at their spaces. The
// wrap is laid out on the class without colour, whose escapes take no column (counted, they
// indented the values past the edge), and a line still wider, a value with no space to wrap at
// under a deep indent, is cut to the width as short cuts values.
func classValues(class, values string, width int) string {
	plain := ansi.ReplaceAllString(class, "")
	lines := strings.Split(textwrap.Line("      "+plain+"  "+values, width), "\n")
	for i, l := range lines {
		if rs := []rune(l); len(rs) > width {
			lines[i] = string(rs[:max(width-3, 0)]) + "..."
		}
	}
	if rest, ok := strings.CutPrefix(lines[0], "      "+plain); ok {
		lines[0] = "      " + class + rest
	}
	return strings.Join(lines, "\n")
}

// pathLine is prefix, a field path and rest laid out for width (0: one line). A path has no space
// to wrap at: where it is wider than the line it breaks before a segment (a "." or "[" outside
// brackets and quotes), each further line from column 4; a segment wider than the line stays
// whole. rest follows the path, wrapped at spaces.
func pathLine(prefix, path, rest string, width int) string {
	if width <= 0 || utf8.RuneCountInString(prefix+path) <= width {
		return textwrap.Line(prefix+path+rest, width)
	}
	var segs []string
	depth, quoted, start := 0, false, 0
	rs := []rune(path)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; {
		case quoted && c == '\\':
			i++ // an escaped character of a quoted map key
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == ']':
			depth--
		case c == '.' || c == '[':
			if depth == 0 && i > start {
				segs, start = append(segs, string(rs[start:i])), i
			}
			if c == '[' {
				depth++
			}
		}
	}
	lines := []string{prefix}
	for _, seg := range append(segs, string(rs[start:])) {
		last := &lines[len(lines)-1]
		if *last != prefix && utf8.RuneCountInString(*last+seg) > width {
			lines = append(lines, "    "+seg)
			continue
		}
		*last += seg
	}
	lines[len(lines)-1] = textwrap.Line(lines[len(lines)-1]+rest, width)
	return strings.Join(lines, "\n")
}

func covered(f classify.Finding) string {
	switch {
	case f.CoveredByKappDefault:
		return " [covered-by-kapp-default]"
	case f.CoveredByPackageRules:
		return " [covered-by-package-rules]"
	}
	return ""
}

// widest is the widest line of s in terminal columns (colour escapes take none).
func widest(s string) int {
	n := 0
	for _, l := range strings.Split(ansi.ReplaceAllString(s, ""), "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func noiseLine(n map[string]int) string {
	if len(n) == 0 {
		return ""
	}
	var keys []string
	total := 0
	for k, v := range n {
		keys = append(keys, fmt.Sprintf("%d %s", v, k))
		total += v
	}
	sort.Strings(keys)
	return fmt.Sprintf("%d differences ignored: %s", total, strings.Join(keys, ", "))
}

// values renders a finding's desired and live values, "-" for no value and null for a null: a
// live null the server wrote is a value kapp shows as added.
func values(f classify.Finding) string {
	d, l := holds(f.Change)
	return heldText(held(f.Desired, d)) + " -> " + heldText(held(f.Live, l))
}

// holds says which objects hold a value by the change: a finding without one (made by hand)
// holds only its non-nil values.
func holds(c fielddiff.Change) (desired, live bool) {
	switch c {
	case "":
		return false, false
	case fielddiff.Added:
		return false, true
	case fielddiff.Removed:
		return true, false
	}
	return true, true
}

func heldText(v *any) string {
	if v == nil {
		return "-"
	}
	if *v == nil {
		return "null"
	}
	return short(*v)
}

// short renders a value on one line, at most 40 characters; "-" when absent, and the empty
// string as "" (printed as nothing, "- -> " read as a value cut off: newcomer7 N7-9 b).
func short(v any) string {
	if v == nil {
		return "-"
	}
	var s string
	if str, ok := v.(string); ok && str != "" {
		s = str
	} else {
		bs, _ := json.Marshal(v)
		s = string(bs)
	}
	s = escape.Text(s)
	if rs := []rune(s); len(rs) > 40 { // cut characters, not bytes: a cut must not split one
		s = string(rs[:37]) + "..."
	}
	return s
}
