package emit

// How a plain copy rule's paths are written for kapp: list items as {allIndexes: true}, and paths
// that differ in one map key merged into one path with a {regex} part.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// siblingsAsRegex is a plain rule's paths as kapp's, paths that differ in one map key only as one path
// whose part there is a {regex: "^(a|b)$"} matching exactly those keys: sibling keys under one
// parent first, then parents holding the same keys (containers and initContainers). kapp makes
// one copy mod per path, and each deep-copies the resource and its sources per source (kapp's
// resources/mod_field_copy.go), so on a fleet the paths of a kind's defaulted fields dominate
// what the rules cost kapp (make bench reports it). The same keys in fewer paths copy the same
// values with fewer copies. Each merge is exact: the paths differ in one part only, so the
// merged path matches their union and nothing else.
func siblingsAsRegex(r synth.Rule) []ctlres.Path {
	var paths [][][]string // per path, per part: the map keys it matches; nil for {allIndexes: true}
	for _, p := range r.Paths {
		var parts [][]string
		for _, s := range p {
			parts = append(parts, []string{s})
		}
		paths = append(paths, parts)
	}
	for _, p := range r.Indexed {
		var parts [][]string
		for _, pe := range p {
			if pe.FieldName != nil {
				parts = append(parts, []string{*pe.FieldName})
			} else {
				parts = append(parts, nil)
			}
		}
		paths = append(paths, parts)
	}
	for merged := true; merged; {
		merged = false
		for k := maxLen(paths) - 1; k >= 0; k-- { // leaves first
			for i := 0; i < len(paths); i++ {
				for j := i + 1; j < len(paths); j++ {
					if differOnlyAt(paths[i], paths[j], k) {
						for _, key := range paths[j][k] {
							if !slices.Contains(paths[i][k], key) {
								paths[i][k] = append(paths[i][k], key)
							}
						}
						paths = slices.Delete(paths, j, j+1)
						j--
						merged = true
					}
				}
			}
		}
	}
	out := make([]ctlres.Path, len(paths))
	for i, parts := range paths {
		for _, keys := range parts {
			switch len(keys) {
			case 0:
				// every item, whether selected by key or by index (synth checked that the items
				// line up on every pair the rule matches). Never {index: N}: kapp v0.66.0's copy
				// indexes the source's list without checking its length
				// (resources/mod_field_copy.go), so a live list shorter than the manifest's would
				// panic kapp; {allIndexes: true} skips the items the source lacks.
				out[i] = append(out[i], ctlres.NewPathPartFromIndexAll())
			case 1:
				out[i] = append(out[i], ctlres.NewPathPartFromString(keys[0]))
			default:
				quoted := make([]string, len(keys))
				for q, key := range keys {
					quoted[q] = regexp.QuoteMeta(key)
				}
				regex := "^(" + strings.Join(quoted, "|") + ")$"
				out[i] = append(out[i], &ctlres.PathPart{Regex: &ctlres.PathPartRegex{Regex: &regex}})
			}
		}
	}
	return out
}

// differOnlyAt reports whether two paths are the same but for the map keys of part k.
func differOnlyAt(a, b [][]string, k int) bool {
	if len(a) != len(b) || k >= len(a) || a[k] == nil || b[k] == nil {
		return false
	}
	for i := range a {
		if i != k && !sameKeys(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameKeys(a, b []string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for _, k := range a {
		if !slices.Contains(b, k) {
			return false
		}
	}
	return true
}

func maxLen(paths [][][]string) int {
	n := 0
	for _, p := range paths {
		n = max(n, len(p))
	}
	return n
}

func pathList(r synth.Rule) string {
	var ps []string
	for _, p := range r.Keyed {
		ps = append(ps, p.String())
	}
	for _, p := range r.Items {
		ps = append(ps, everyItem(p)+" (into the same item, wherever it stands)")
	}
	for _, p := range r.Empty {
		ps = append(ps, p.String()+" (empty map)")
	}
	for _, p := range r.Nulls {
		ps = append(ps, p.String()+" (null)")
	}
	for _, rw := range r.Rewrites {
		ps = append(ps, fmt.Sprintf("%s (%s stored as %s)", rw.Path, shown(rw.From), shown(rw.To)))
	}
	if r.FoldStringData {
		ps = append(ps, "stringData (stored in data)")
	}
	return strings.Join(ps, ", ")
}

// everyItem is p with every list step written [*]: the paths of a rule copying into items by
// content hold no index.
func everyItem(p fielddiff.Path) string {
	var b strings.Builder
	for _, pe := range p {
		if pe.FieldName == nil {
			b.WriteString("[*]")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(*pe.FieldName)
	}
	return b.String()
}
