package verdict

// What a hand-written ytt rule decides on. The mutation check judges a rule by the declared values
// it changes, against the live object as captured and one write later: a ytt program deciding on
// more than that (the live object's status, kapp's own annotations such as kapp.k14s.io/nonce, a
// live value of a field it does not write, the live value of one it writes, the text of a value
// Git changes) acts otherwise on state the check never explores, and its verdict there is luck
// (issue 23, probe12 P12-1, P12-4, P12-6, P12-7). No sampling of the live object can find every
// state a program's condition holds in, so the program's reads are observed instead
// (internal/yttreads, on the pair as paired) and such a rule is not judged: a finding failing the
// gate, naming the rule and the value it read.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/yttreads"
)

// RuleUnjudged is a hand-written ytt rule whose effect on a resource depends on a value the
// mutation check does not vary: the first such value its program read, and the others.
type RuleUnjudged struct {
	Resource pair.Identity
	Rule     string
	At       RuleAt
	Path     string // the value read: "existing status.conditions[type=Available].status"
	Why      string
	More     []string // the other values read that the check does not vary
}

// maxReads keeps the list of other values read in a finding short.
const maxReads = 3

// rulesUnjudged observes what each hand-written ytt rule's program reads of the sources kapp gives
// it on each paired resource its matchers do not rule out by identity. A rule generate wrote,
// recognised by its program (emit.OverlayReads), reads only what it rewrites: it is not traced.
func rulesUnjudged(in Input) ([]RuleUnjudged, error) {
	_, conf, err := ctlconf.NewConfFromResourcesWithDefaults(nil)
	if err != nil {
		return nil, err
	}
	builtin := conf.RebaseMods()
	var out []RuleUnjudged
	for _, r := range in.Report.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			return nil, err
		}
		if live.Unstructured == nil {
			continue // kapp rebases nothing without a live object
		}
		ids := matchedAs(desired.Unstructured, live.Unstructured) // as touched decides it
		for _, rule := range in.Rules {
			if rule.ytt == nil || rule.At.Generated || rule.hint != nil {
				continue
			}
			if matches, decided := decidedAs(rule.matcher, ids); decided && !matches {
				continue
			}
			for _, mod := range rule.ytt {
				y, ok := mod.(yttresmod.OverlayContractV1Mod)
				if !ok {
					continue
				}
				if _, generated := emit.OverlayReads(y.OverlayYAML); generated {
					continue
				}
				u, ok, err := unjudgedRead(y.OverlayYAML, desired.Unstructured, live.Unstructured, builtin)
				if err != nil {
					return nil, err
				}
				if ok {
					u.Resource, u.Rule, u.At = r.ID, rule.what, rule.At
					out = append(out, u)
				}
			}
		}
	}
	return out, nil
}

// unjudgedRead traces overlay on desired against live as kapp rebases it (new the manifest,
// existing the live object, the resource overlaid and _current the manifest as kapp's built-in
// rules leave it: the live metadata but labels and annotations), within the budgets of kapp's
// evaluations, and returns the first value read that the mutation check does not vary, with the
// others; false when the program reads none. An evaluation over a budget is an error, as kapp's
// own.
func unjudgedRead(overlay string, desired, live *unstructured.Unstructured, builtin []ctlres.ResourceModWithMultiple) (RuleUnjudged, bool, error) {
	res := ctlres.NewResourceUnstructured(*desired, ctlres.ResourceType{})
	ex := ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{})
	cur, err := ctldiff.NewRebasedResource(ex, res, builtin).Resource()
	if err != nil {
		return RuleUnjudged{}, false, err
	}
	srcs := map[ctlres.FieldCopyModSource]ctlres.Resource{ctlres.FieldCopyModSourceNew: res, ctlres.FieldCopyModSourceExisting: ex, "_current": cur}
	tr, err := kappglobal.TraceYTT(overlay, cur, srcs)
	var budget *kappglobal.YTTOverrun
	var memory *kappglobal.YTTOverBudget
	switch {
	case errors.As(err, &budget) || errors.As(err, &memory):
		return RuleUnjudged{}, false, err
	case err != nil:
		why := "its program fails when its reads are traced"
		var withheld *kappglobal.YTTWithheld
		if !errors.As(err, &withheld) { // a rule's message may quote a Secret's values
			why += ": " + err.Error()
		}
		return RuleUnjudged{Why: why + ", so what it decides on is not known"}, true, nil
	}
	var u RuleUnjudged
	seen := map[string]bool{}
	for _, rd := range tr.Reads {
		why := unvaried(rd, tr, desired, live)
		if why == "" {
			continue
		}
		obj := desired
		if rd.Source != "new" {
			obj = live
			if !serverMetadata(rd.Path) && rd.Source != "existing" {
				obj = desired // the manifest's value in the object kapp rebases
			}
		}
		at := rd.Source + " " + fielddiff.ByKey(obj, pathOf(rd.Path)).String()
		if len(rd.Path) == 0 {
			at = rd.Source + " (the whole object)"
		}
		switch {
		case seen[at]:
		case u.Path == "":
			u.Path, u.Why = at, why
		default:
			u.More = append(u.More, at)
		}
		seen[at] = true
	}
	return u, u.Path != "", nil
}

// unvaried says why the mutation check does not vary what rd read ("" where it does): a read of
// the live object outside what the program writes there, or writing another value than the live
// one; the content of a value of the manifest, but its identity and its list items' keys.
func unvaried(rd yttreads.Read, tr yttreads.Trace, desired, live *unstructured.Unstructured) string {
	p := pathOf(rd.Path)
	if identityRead(rd.Path) || rd.How == yttreads.Keys && len(rd.Path) == 0 {
		return ""
	}
	switch {
	case rd.Source == "new":
	case serverMetadata(rd.Path):
		// what kapp's built-in rule copied from the live object into the object rebased: a
		// program writing it back as it was has no use for it but to decide on it
		return "its program reads the live object's server metadata (the API server's generation, resourceVersion, managedFields, uid... which kapp's built-in rule also copies into the object it rebases): the mutation check never varies it far enough, and the API server moves it on by itself, so what the rule does once it changes is never judged"
	case rd.Source == "existing":
	case rd.How == yttreads.Whole && len(rd.Path) < 2:
		// the object rebased, or its metadata, taken whole: a copy unless the program writes
		// another server metadata there than kapp's rebase holds
		if !sameServerMetadata(tr.Out, live.Object) {
			return "its program reads the object kapp rebases, with the live server metadata kapp's built-in rule copies into it, and writes other server metadata: what the rule decides on it is never judged"
		}
		return ""
	case rd.Source == yttreads.Left && rd.How != yttreads.Content:
		return "" // the manifest's values as rebased, taken whole or counted: see README
	}
	if rd.Source != "existing" {
		if rd.How == yttreads.Absent || rd.How == yttreads.Keys || itemKey(desired, p) {
			return ""
		}
		return "its program reads the text of a value the manifest declares, which Git changes: the mutation check's random values hit a rule deciding on that text only by luck, so its verdict would differ from run to run"
	}
	written := slices.ContainsFunc(tr.Writes, func(w []any) bool { return under(rd.Path, w, rd.How == yttreads.Keys) })
	if !written {
		return "its program reads this value of the live object and does not write it: the mutation check never varies it (the live status, kapp's own annotations, another field's live value), so what the rule does once it changes is never judged"
	}
	switch rd.How {
	case yttreads.Content, yttreads.Whole:
		if len(rd.Path) == 0 {
			return "its program reads the whole live object"
		}
		lv, inLive := p.Get(live.Object)
		ov, inOut := p.Get(tr.Out)
		if inLive != inOut || !fielddiff.Equal(lv, ov) {
			return "its program reads this live value and writes another there: a rule deciding on the live value acts otherwise once it changes (the next deploy leaves Git's value there), which the mutation check never tries"
		}
	}
	return ""
}

// under reports whether the program's write w is at read (keys: or below it, a map or list the
// program goes through to reach what it writes).
func under(read, w []any, keys bool) bool {
	if n := len(w); n > 0 && w[n-1] == yttreads.AnyBelow {
		if w = w[:n-1]; len(read) >= len(w) {
			read = read[:len(w)] // at or below what the overlay replaces
		} else if !keys {
			return false
		}
	}
	if len(w) < len(read) || !keys && len(w) != len(read) {
		return false
	}
	for i, pe := range read {
		switch pe := pe.(type) {
		case string:
			if s, ok := w[i].(string); !ok || s != pe {
				return false
			}
		case int:
			if w[i] != yttreads.AnyItem {
				return false
			}
		}
	}
	return true
}

// serverMetadata reports whether path is at or below a field of metadata that kapp's built-in
// rebase rule copies from the live object and does not put back from the manifest (all but the
// identity, labels and annotations: config/default.go).
func serverMetadata(path []any) bool {
	if len(path) < 2 || path[0] != "metadata" {
		return false
	}
	switch path[1] {
	case "name", "namespace", "labels", "annotations":
		return false
	}
	return true
}

// sameServerMetadata reports whether out holds live's server metadata.
func sameServerMetadata(out, live map[string]any) bool {
	strip := func(obj map[string]any) map[string]any {
		m, _ := obj["metadata"].(map[string]any)
		kept := map[string]any{}
		for k, v := range m {
			if serverMetadata([]any{"metadata", k}) {
				kept[k] = v
			}
		}
		return kept
	}
	return fielddiff.Equal(strip(out), strip(live))
}

// identityRead reports whether path is the object's identity, by which kapp paired the sources.
func identityRead(path []any) bool {
	s := make([]string, len(path))
	for i, pe := range path {
		s[i] = fmt.Sprint(pe)
	}
	switch strings.Join(s, ".") {
	case "apiVersion", "kind", "metadata", "metadata.name", "metadata.namespace":
		return true
	}
	return false
}

// itemKey reports whether p is a key field of a keyed list's item (a container's name), by which
// a program finds the item it writes.
func itemKey(u *unstructured.Unstructured, p fielddiff.Path) bool {
	if len(p) < 2 || p[len(p)-2].Index == nil || p[len(p)-1].FieldName == nil {
		return false
	}
	item := fielddiff.ByKey(u, p[:len(p)-1])
	last := item[len(item)-1]
	if last.Key == nil {
		return false
	}
	return slices.ContainsFunc(*last.Key, func(f value.Field) bool { return f.Name == *p[len(p)-1].FieldName })
}

// pathOf is a read's path as a field path, by index.
func pathOf(at []any) fielddiff.Path {
	out := make(fielddiff.Path, 0, len(at))
	for _, pe := range at {
		switch pe := pe.(type) {
		case string:
			out = append(out, fieldpath.PathElement{FieldName: new(pe)})
		case int:
			out = append(out, fieldpath.PathElement{Index: new(pe)})
		}
	}
	return out
}
