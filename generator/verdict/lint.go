package verdict

import "github.com/rebasegen/rebasegen/generator/lint"

// LintHidden groups the hidden fields by the rule hiding them, and the values the rules not judged
// read (us), for lint to report on the rule.
func LintHidden(hs []Hidden, us []RuleUnjudged) []lint.Hidden {
	var out []lint.Hidden
	at := map[RuleAt]int{}
	of := func(r RuleAt) int {
		i, ok := at[r]
		if !ok {
			i, at[r] = len(out), len(out)
			out = append(out, lint.Hidden{File: r.File, Line: r.Line, Doc: r.Doc, Key: r.Key})
		}
		return i
	}
	for _, h := range hs {
		if h.At.File == "" {
			continue // no one rule: check reports it
		}
		i := of(h.At)
		out[i].Fields = append(out[i].Fields, h.String())
	}
	for _, u := range us {
		i := of(u.At)
		out[i].Unjudged = append(out[i].Unjudged, u.Resource.String()+": "+u.Path)
	}
	return out
}
