package emit

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/textwrap"
	"github.com/rebasegen/rebasegen/internal/words"
)

// groupNames is how many resources a grouped line names before counting the rest.
const groupNames = 3

// WriteExplainGrouped writes explain's text for a fleet: per kind, each difference (path and
// class) once, with how many of the kind's resources have it, its values and evidence where every
// resource has the same, else one example's marked "e.g." (timestamps and values vary from
// resource to resource, and a drift's manager: the class names none) and, for the evidence, what
// differs in which resources (evidenceLine); and which resources when not all of them; then the
// summary WriteExplainText ends with. width as WriteExplainText's.
func WriteExplainGrouped(w io.Writer, rep *classify.Report, pal Palette, width int) error {
	type group struct {
		f     classify.Finding
		names []string
		same  bool // every resource has the example's values
		// the evidences, in the order first seen (the example's first), and the resources of each
		evidences []string
		by        map[string][]string
	}
	type kind struct {
		name      string
		resources int
		groups    []*group
		byKey     map[string]*group
		warnings  map[string]int
		warnOrder []string
		noise     map[string]int
	}
	var kinds []*kind
	byKind := map[string]*kind{}
	for _, r := range rep.Resources {
		kn := kindOf(r.ID.Group, r.ID.Kind)
		k := byKind[kn]
		if k == nil {
			k = &kind{name: kn, byKey: map[string]*group{}, warnings: map[string]int{}, noise: map[string]int{}}
			byKind[kn] = k
			kinds = append(kinds, k)
		}
		k.resources++
		name := r.ID.Name
		if r.ID.Namespace != "" {
			name = r.ID.Namespace + "/" + name
		}
		for _, f := range r.Findings {
			key := f.Path.String() + "\x00" + f.Label() + covered(f)
			g := k.byKey[key]
			if g == nil {
				g = &group{f: f, same: true, by: map[string][]string{}}
				k.byKey[key] = g
				k.groups = append(k.groups, g)
			}
			g.names = append(g.names, name)
			g.same = g.same && values(f) == values(g.f)
			if g.by[f.Evidence] == nil {
				g.evidences = append(g.evidences, f.Evidence)
			}
			g.by[f.Evidence] = append(g.by[f.Evidence], name)
			if f.Warning != "" {
				wk := escape.Text(f.Path.String()) + ": " + escape.Text(f.Warning)
				if k.warnings[wk] == 0 {
					k.warnOrder = append(k.warnOrder, wk)
				}
				k.warnings[wk]++
			}
		}
		for reason, n := range r.Noise {
			k.noise[reason] += n
		}
	}
	b := &strings.Builder{}
	for _, k := range kinds {
		fmt.Fprintf(b, "%s: %s\n", escape.Text(k.name), words.Count(k.resources, "resource"))
		if len(k.groups) == 0 {
			b.WriteString("  no differences\n")
		}
		type row struct{ path, class, values, evidence string }
		var rows []row
		for _, g := range k.groups {
			vals := values(g.f)
			if !g.same {
				vals = "e.g. " + vals
			}
			ev := escape.Text(g.f.Evidence)
			if len(g.evidences) > 1 {
				ev = "e.g. " + ev
			}
			rows = append(rows, row{escape.Text(g.f.Path.String()), fmt.Sprintf("%s%s  %d/%d", pal.class(g.f), covered(g.f), len(g.names), k.resources), vals, ev})
		}
		var table strings.Builder
		tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
		for _, r := range rows {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.path, strings.Replace(r.class, "  ", "\t", 1), r.values, r.evidence)
		}
		tw.Flush()
		out := table.String()
		if width > 0 && widest(out) > width {
			var narrow strings.Builder // appended, not concatenated: a kind may have thousands of rows
			for _, r := range rows {
				narrow.WriteString(narrowRow(r.path, r.class, r.values, r.evidence, width))
			}
			out = narrow.String()
		}
		b.WriteString(out)
		for _, g := range k.groups {
			if len(g.names) < k.resources {
				fmt.Fprintln(b, pathLine("  ", escape.Text(g.f.Path.String()), " in "+nameList(g.names), width))
			}
		}
		for _, g := range k.groups {
			if len(g.evidences) > 1 {
				fmt.Fprintln(b, pathLine("  ", escape.Text(g.f.Path.String()), evidenceLine(g.evidences, g.by), width))
			}
		}
		for _, wk := range k.warnOrder {
			fmt.Fprintln(b, textwrap.Line(fmt.Sprintf("  ! %s (%s)", wk, words.Count(k.warnings[wk], "resource")), width))
		}
		if n := noiseLine(k.noise); n != "" {
			fmt.Fprintln(b, textwrap.Line("  ("+escape.Text(n)+")", width))
		}
		b.WriteByte('\n')
	}
	for _, l := range []struct {
		docs []load.Doc
		what string
	}{{rep.Created, "not among the live objects (kapp would create them)"}, {rep.Deleted, deletedText}, {rep.LiveOnly, liveOnlyOf(rep)}} {
		var order []string
		names := map[string][]string{}
		for _, d := range l.docs {
			kn := kindOf(d.GroupKind().Group, d.Kind)
			if names[kn] == nil {
				order = append(order, kn)
			}
			name := d.Name
			if d.Namespace != "" {
				name = d.Namespace + "/" + name
			}
			names[kn] = append(names[kn], name)
		}
		for _, kn := range order {
			fmt.Fprintln(b, textwrap.Hanging(fmt.Sprintf("%s: %s %s: %s", escape.Text(kn), words.Count(len(names[kn]), "resource"), l.what, nameList(names[kn])), width, 4))
		}
	}
	writeSummary(b, rep, width)
	_, err := io.WriteString(w, b.String())
	return err
}

// evidenceLine says where the evidences of one grouped difference differ (every other word is
// the same in all): the words that vary, as each evidence holds them, and in which resources,
// the most common first (the example's first of equals), groupNames of them and how many more.
func evidenceLine(evidences []string, by map[string][]string) string {
	split := make([][]string, len(evidences))
	shortest := -1
	for i, e := range evidences {
		split[i] = strings.Split(escape.Text(e), " ")
		if shortest < 0 || len(split[i]) < shortest {
			shortest = len(split[i])
		}
	}
	same := func(at func(ws []string) string) bool {
		for _, ws := range split[1:] {
			if at(ws) != at(split[0]) {
				return false
			}
		}
		return true
	}
	prefix := 0
	for prefix < shortest && same(func(ws []string) string { return ws[prefix] }) {
		prefix++
	}
	suffix := 0
	for prefix+suffix < shortest && same(func(ws []string) string { return ws[len(ws)-1-suffix] }) {
		suffix++
	}
	order := make([]int, len(evidences))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(by[evidences[order[a]]]) > len(by[evidences[order[b]]]) })
	var parts []string
	for _, i := range order[:min(len(order), groupNames)] {
		mid := strings.Join(split[i][prefix:len(split[i])-suffix], " ")
		if rs := []rune(mid); len(rs) > 60 {
			mid = string(rs[:57]) + "..."
		}
		if prefix > 0 {
			mid = "..." + mid
		}
		if suffix > 0 {
			mid += "..."
		}
		parts = append(parts, `"`+mid+`" in `+nameList(by[evidences[i]]))
	}
	s := " evidence differs: " + strings.Join(parts, "; ")
	if more := len(evidences) - len(parts); more > 0 {
		s += "; and " + words.Count(more, "more variant")
	}
	return s
}

// nameList is the first few names, escaped, and how many more.
func nameList(names []string) string {
	shown := make([]string, 0, groupNames)
	for _, n := range names[:min(len(names), groupNames)] {
		shown = append(shown, escape.Text(n))
	}
	s := strings.Join(shown, ", ")
	if more := len(names) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// kindOf is a kind as pair.Identity writes it: "apps/Deployment", "core/ConfigMap".
func kindOf(group, kind string) string {
	if group == "" {
		group = "core"
	}
	return group + "/" + kind
}
