package lint

import (
	"fmt"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
	"github.com/rebasegen/rebasegen/internal/words"
)

// maxPaths keeps the narrower-rule suggestion short.
const maxPaths = 8

// narrower lists what rebasegen generate writes, below the rule's paths, for the paired resources
// the rule matches: the narrow rule to write instead of a broad one. "" without --live.
func (c *checker) narrower(a at, r ctlconf.RebaseRule) string {
	if c.gen == nil {
		return ""
	}
	var paired []resource
	for _, res := range c.resources {
		if res.live != nil {
			paired = append(paired, res)
		}
	}
	matched := c.matching(paired, r.ResourceMatchers)
	if len(matched) == 0 {
		return ""
	}
	var prefixes [][]string
	for _, p := range rulePaths(a, r) {
		var keys []string
		for _, part := range p.p {
			if part.MapKey == nil {
				break
			}
			keys = append(keys, *part.MapKey)
		}
		prefixes = append(prefixes, keys)
	}
	gen := make([]*kappmatch.Matcher, len(c.gen.Rules)) // built once: a rule may name thousands
	for i, g := range c.gen.Rules {
		if ms, err := synth.KappMatchers(g.Matchers); err == nil {
			if m, ok := kappmatch.New(ms); ok {
				gen[i] = &m
			}
		}
	}
	perResource := make([][]string, len(matched))
	total := 0
	for ri, res := range matched {
		var paths []string
		for i, g := range c.gen.Rules {
			if gen[i] == nil || !gen[i].Matches(res.kapp) {
				continue
			}
			for _, p := range generatedPaths(g) {
				if s := fielddiff.ByKey(res.obj, p).String(); under(p, prefixes) && !slices.Contains(paths, s) {
					paths = append(paths, s)
				}
			}
		}
		slices.Sort(paths)
		perResource[ri] = paths
		total += len(paths)
	}
	if total == 0 {
		return fmt.Sprintf("rebasegen generate finds no ghost diff there on the %s the rule matches: no rule needed", words.Count(len(matched), "resource"))
	}
	var parts []string
	left := words.Shown(total, maxPaths)
	for ri, res := range matched {
		if n := min(len(perResource[ri]), left); n > 0 {
			parts = append(parts, res.id.String()+": "+strings.Join(perResource[ri][:n], ", "))
			left -= n
		}
	}
	s := "rebasegen generate writes only " + strings.Join(parts, "; ")
	if more := total - words.Shown(total, maxPaths); more > 0 {
		s += fmt.Sprintf(" (and %d more)", more)
	}
	return s
}

func generatedPaths(r synth.Rule) []fielddiff.Path {
	var out []fielddiff.Path
	for _, g := range r.Parts() {
		for _, p := range g.Paths {
			out = append(out, fielddiff.FromFields(p))
		}
		out = append(append(append(append(out, g.Indexed...), g.Keyed...), g.Items...), g.Empty...)
		for _, rw := range g.Rewrites {
			out = append(out, rw.Path)
		}
		if g.Drop != nil {
			out = append(out, g.Drop)
		}
	}
	return out
}

// under reports whether p lies below one of the prefixes (map keys); a ytt rule has none: all.
func under(p fielddiff.Path, prefixes [][]string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, q := range prefixes {
		if len(p) < len(q) {
			continue
		}
		ok := true
		for i, k := range q {
			if p[i].FieldName == nil || *p[i].FieldName != k {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
