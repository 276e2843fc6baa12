package argocd

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"github.com/itchyny/gojq"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Lint is one thing wrong with a hand-written ignore whatever the objects hold.
type Lint struct {
	Error bool   // else a warning
	Where string // the entry: group/kind[ namespace/name] and the path
	What  string
	At    verdict.RuleAt // where the entry is written (Read's: file, document, its line); zero when not read from one
}

// Finding is l as lint's findings are written in every format (file:line of the entry).
func (l Lint) Finding() lint.Finding {
	f := lint.Finding{Severity: lint.Warning, File: l.At.File, Line: l.At.Line, Rule: -1, Message: l.Where + ": " + l.What}
	if l.Error {
		f.Severity = lint.Error
	}
	return f
}

// entry is an ignore and where it is written.
type entry struct {
	Ignore
	at       verdict.RuleAt
	of       appRef // the Application it belongs to (an Application's entry)
	override string // argocd-cm's key of the override it is (an argocd-cm entry)
}

// entries are s's ignores and argocd-cm's, each with where it is written, as Argo CD merges them.
func (s Settings) entries() []entry {
	var out []entry
	for i, ig := range s.Ignores {
		e := entry{Ignore: ig}
		if i < len(s.ignoresAt) {
			e.at = s.ignoresAt[i]
		}
		if i < len(s.ignoresOf) {
			e.of = s.ignoresOf[i]
		}
		out = append(out, e)
	}
	keys := make([]string, 0, len(s.Overrides))
	for key := range s.Overrides {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		ov := s.Overrides[key]
		group, kind, ok := strings.Cut(key, "/")
		if !ok {
			group, kind = "", key
		}
		out = append(out, entry{Ignore: Ignore{Group: group, Kind: kind, JSONPointers: ov.IgnoreDifferences.JSONPointers,
			JQPathExpressions: ov.IgnoreDifferences.JQPathExpressions, ManagedFieldsManagers: ov.IgnoreDifferences.ManagedFieldsManagers},
			at: s.overridesAt[key], override: key})
	}
	return out
}

func where(ig Ignore, path string) string {
	s := ig.Group + "/" + ig.Kind
	if ig.Name != "" {
		s += " " + strings.TrimPrefix(ig.Namespace+"/"+ig.Name, "/")
	}
	return s + " " + path
}

// LintSettings finds what is wrong with the ignores in s on the analysed objects: a JSON pointer
// through a list index (after a reorder it ignores another item), a jq expression that does not
// compile, that runs for more than a tenth of Argo CD's 1 s limit on a desired or live object
// (whether Argo CD applies it then depends on its controller's load: past the limit it skips it)
// or that selects a whole object or one of its top-level fields (it matches everything below it).
func LintSettings(rep *classify.Report, s Settings) []Lint {
	var out []Lint
	for _, e := range s.entries() {
		ig := e.Ignore
		for _, p := range ig.JSONPointers {
			for _, seg := range strings.Split(p, "/")[1:] {
				if seg != "" && strings.Trim(seg, "0123456789") == "" {
					out = append(out, Lint{At: e.at, Where: where(ig, p), What: "a list index: after items are added, removed or reordered it ignores another item; select the item by its key with a jq expression"})
					break
				}
			}
		}
		for _, expr := range ig.JQPathExpressions {
			q, err := gojq.Parse("path(" + expr + ")")
			if err == nil {
				_, err = gojq.Compile(q)
			}
			if err != nil {
				out = append(out, Lint{At: e.at, Error: true, Where: where(ig, expr), What: "does not compile as jq: " + err.Error()})
				continue
			}
			if l, bad := runJQ(rep, ig, "path("+expr+")"); bad {
				l.Where, l.At = where(ig, expr), e.at
				out = append(out, l)
			}
		}
	}
	return out
}

// runJQ runs a jq path query on every desired and live object ig applies to, its steps counted,
// in the jq child where this executable serves one.
func runJQ(rep *classify.Report, ig Ignore, program string) (Lint, bool) {
	s := Settings{Ignores: []Ignore{ig}}
	for _, r := range rep.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			continue
		}
		if !s.Applies(desired.Unstructured) {
			continue
		}
		for i, o := range []map[string]any{desired.UnstructuredContent(), live.UnstructuredContent()} {
			obj := redacted(o)
			side := [...]string{"desired", "live"}[i]
			res, err := s.paths(program, obj, slowJQSteps, i == 0)
			switch {
			case overChild(err):
				return Lint{Error: true, What: fmt.Sprintf("on the %s object of %s %s: Argo CD gives an expression %s and skips it past that, or its controller runs out of memory first",
					side, r.ID, overWhat(err), time.Duration(normalizers.DefaultJQExecutionTimeout))}, true
			case err != nil:
				continue
			case res.Found && i == 0:
				return Lint{Error: true, What: fmt.Sprintf("selects %s of %s whole: it ignores every field below it", jqPathWords(res.Short, obj), r.ID)}, true
			case res.Steps > slowJQSteps:
				return Lint{Error: true, What: fmt.Sprintf("runs for over %d jq steps on the %s object of %s, about a tenth of what Argo CD's %s limit allows: whether Argo CD applies it depends on its controller's load (past the limit it skips it, and the field shows); rebasegen's verdict judges it applied (up to %d steps)",
					slowJQSteps, side, r.ID, time.Duration(normalizers.DefaultJQExecutionTimeout), maxJQSteps)}, true
			}
		}
	}
	return Lint{}, false
}

// jqPathWords names the path p a query selected in obj. A jq path query can compute a path
// element from any value it reads (getpath([.data.password])): an element is named only when it
// is one of obj's top-level keys, which are no object's content.
func jqPathWords(p []any, obj map[string]any) string {
	if len(p) == 0 {
		return "the object"
	}
	if k, ok := p[0].(string); ok {
		if _, has := obj[k]; has {
			return fmt.Sprintf("the top-level field %s", k)
		}
	}
	return "a top-level field"
}

// redacted is obj for lint's jq runs: a Secret's data and stringData values are blanked, so that
// no expression can carry one into a finding.
func redacted(obj map[string]any) map[string]any {
	if obj["kind"] != "Secret" || obj["apiVersion"] != "v1" {
		return obj
	}
	out := maps.Clone(obj)
	for _, field := range []string{"data", "stringData"} {
		m, ok := obj[field].(map[string]any)
		if !ok {
			continue
		}
		blank := make(map[string]any, len(m))
		for k := range m {
			blank[k] = ""
		}
		out[field] = blank
	}
	return out
}
