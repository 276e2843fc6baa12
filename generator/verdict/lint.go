package verdict

import "github.com/rebasegen/rebasegen/generator/lint"

// LintHidden groups the hidden fields by the rule hiding them, for lint to report on the rule.
func LintHidden(hs []Hidden) []lint.Hidden {
	var out []lint.Hidden
	at := map[RuleAt]int{}
	for _, h := range hs {
		if h.At.File == "" {
			continue // no one rule: check reports it
		}
		i, ok := at[h.At]
		if !ok {
			i, at[h.At] = len(out), len(out)
			out = append(out, lint.Hidden{File: h.At.File, Line: h.At.Line, Doc: h.At.Doc, Key: h.At.Key})
		}
		out[i].Fields = append(out[i].Fields, h.String())
	}
	return out
}
