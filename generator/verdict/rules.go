package verdict

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// RuleAt is where a rule kapp applies is written, for a finding to point at it.
type RuleAt struct {
	File string // as given ("-": stdin); for a document ytt rendered, what was rendered
	Doc  int    // 1-based document in File (in ytt's output, when rendered); 0 for a document ytt passed through as written, File its file
	Line int    // the rule's line in File, else its document's; 0 when rendered (ytt's output has the lines)
	Key  string // the Config key and the rule's index there (rebaseRules[2]), inside data["config.yml"] for a labelled ConfigMap
	// From: for a rule ytt rendered, the template it came from (load.Source.From): a rules
	// Secret's key names where in the Secret it is written
	From string
	// Generated: a rule rebasegen generate writes (no file yet); Key names it.
	Generated bool
}

// String names the rule as text findings do: file:line, document, key.
func (w RuleAt) String() string {
	switch {
	case w.Generated:
		return "generated rule " + w.Key
	case w.Line == 0:
		return fmt.Sprintf("%s, ytt output document %d, %s", w.File, w.Doc, w.Key)
	case w.Doc == 0: // a document ytt passed through as written: its file's line
		return fmt.Sprintf("%s:%d, %s", w.File, w.Line, w.Key)
	}
	return fmt.Sprintf("%s:%d, document %d, %s", w.File, w.Line, w.Doc, w.Key)
}

// Rule is one rule of a kapp Config that can make kapp ignore or rewrite a declared field,
// the rules the mutation check asks about (README, check, lists what kapp v0.66.0 reads and why
// the other keys cannot hide a change):
//   - rebaseRules: a copy whose sources start with existing (the cluster's value wins), a remove
//     (kapp drops the manifest's value), a ytt overlay (it can write any field); a copy from new
//     first keeps every value the manifest declares;
//   - diffAgainstExistingFieldExclusionRules: the path is removed from both sides before kapp
//     diffs (diff/change_factory.go newResourceWithoutHistory);
//   - diffAgainstLastAppliedFieldExclusionRules: the path is ignored when kapp decides whether
//     its last-applied copy still holds (diff/resource_with_history.go);
//   - ownershipLabelRules, labelScopingRules: kapp writes its labels into the map at the path
//     (resources/labeled_resources.go), over a declared value of the same key;
//   - templateRules: kapp writes a versioned name into the references at each objectReferences
//     path (diff/versioned_resource.go);
//   - additionalLabels: kapp writes these labels through every ownership label rule, its own
//     included, over declared values of the same keys.
type Rule struct {
	At    RuleAt
	what  string // the rule as its author wrote it
	paths []ctlres.Path
	keys  map[string]bool                  // additionalLabels: the declared map entries of these keys, wherever they stand
	wrote map[string]string                // additionalLabels: the value written at each key
	ytt   []ctlres.ResourceModWithMultiple // a ytt rebase rule's mods: it rewrites what they rewrite
	// hint: the paths a generated ytt rule rewrites (synth's), the only declared values tried
	hint  []fielddiff.Path
	index int // in rebaseRules; -1 for the other keys
	// keepsDeclared: a copy from new first, which changes no declared value (no mutation check)
	keepsDeclared bool
	// restores: a copy from the live object (existing among its sources), which puts back a
	// value the manifest no longer declares
	restores bool
	// lastAppliedCheck: a diffAgainstLastAppliedFieldExclusionRules rule, which only decides
	// whether kapp diffs against its last-applied copy
	lastAppliedCheck bool
	// kappLabels: an ownership or label scoping rule, which writes kapp's own labels
	kappLabels bool
	// removes: a remove rule, which takes from what kapp applies a value kapp's built-in rules
	// would copy from the live object
	removes bool
	// mods: how many rebase mods kapp makes of a rebaseRules rule (config.RebaseRule.AsMods: one
	// per path, one for a ytt overlay), in the order kapp applies them
	mods    int
	matcher kappmatch.Matcher
	// matchers: the rule's resourceMatchers as written, and where one is written (sub: its path
	// among them), for a pending delete to name those selecting the deleted object alone
	matchers  []ctlconf.ResourceMatcher
	matcherAt func(sub ...any) RuleAt
	// source: the file of the Config it is written in, as kapp reads the Config (load.Source.File;
	// "" for generate's own), which blameFiles leaves out to ask whether the rule is needed
	source string
}

// Rules reads the rules that can hide a declared field from Configs and labelled ConfigMaps
// with kapp's own parser, each with where it is written (r reads the files for the rules' lines).
// A Config kapp cannot read has no such rules here: kapp's engine (and lint) report it.
func Rules(configs []load.Object, r *load.Reader) []Rule {
	kappglobal.Prepare()
	lines := lint.NewLines(r)
	var out []Rule
	for _, o := range configs {
		cfg, ok := kappConfig(o)
		if !ok {
			continue
		}
		start := len(out)
		out = append(out, rulesOf(cfg, placer(o, lines))...)
		for i := start; i < len(out); i++ {
			out[i].source = o.Source.File
		}
	}
	return out
}

// placer says where the rule at index i of key (-1: the key) of Config o is written, or what sub
// names in it (keys and list indexes: resourceMatchers, 1), its Key then naming it too
// (rebaseRules[2].resourceMatchers[1]).
func placer(o load.Object, lines *lint.Lines) func(key string, i int, sub ...any) RuleAt {
	return func(key string, i int, sub ...any) RuleAt {
		at := RuleAt{File: o.Source.File, Doc: o.Source.Doc, Key: key}
		if i >= 0 {
			at.Key += fmt.Sprintf("[%d]", i)
		}
		for _, step := range sub {
			if n, ok := step.(int); ok {
				at.Key += fmt.Sprintf("[%d]", n)
			} else {
				at.Key += fmt.Sprintf(".%s", step)
			}
		}
		if load.IsLabelledConfig(o) {
			at.Key = `data["` + kappconv.ConfigKey + `"] ` + at.Key
		}
		if rendered, ok := yttrender.RenderedFrom(o.Source.File); ok && o.Source.FromLine > 0 {
			// ytt passed the document through as written: the file's lines are its own
			written := o
			written.Source = load.Source{File: o.Source.From, Line: o.Source.FromLine}
			at.File, at.Doc, at.Line = o.Source.From, 0, lines.Of(written, key, i, sub...)
		} else if ok {
			at.File, at.From = rendered, o.Source.From
		} else {
			at.Line = lines.Of(o, key, i, sub...)
		}
		return at
	}
}

// rulesOf reads the rules of one Config that can hide a declared field; at says where the rule
// at index i of key is written (placer).
func rulesOf(cfg ctlconf.Config, at func(key string, i int, sub ...any) RuleAt) []Rule {
	var out []Rule
	add := func(key string, i int, what string, ms []ctlconf.ResourceMatcher, paths ...ctlres.Path) *Rule {
		m, ok := kappmatch.New(ms)
		if !ok {
			return nil
		}
		index, mods := -1, 0
		if key == "rebaseRules" {
			index, mods = i, len(paths)
		}
		out = append(out, Rule{At: at(key, i), what: what, paths: paths, matcher: m, index: index, mods: mods,
			restores: key == "rebaseRules" && cfg.RebaseRules[i].Type == "copy" && slices.Contains(cfg.RebaseRules[i].Sources, ctlres.FieldCopyModSourceExisting),
			matchers: ms, matcherAt: func(sub ...any) RuleAt { return at(key, i, append([]any{"resourceMatchers"}, sub...)...) }})
		return &out[len(out)-1]
	}
	for i, r := range cfg.RebaseRules {
		switch {
		case r.Ytt != nil && r.Ytt.OverlayContractV1 != nil:
			if h := add("rebaseRules", i, "ytt overlay", r.ResourceMatchers); h != nil {
				h.ytt = r.AsMods()
				h.mods = len(h.ytt)
			}
		case r.Ytt != nil:
		case r.Type == "copy" && len(r.Sources) > 0 && r.Sources[0] == ctlres.FieldCopyModSourceExisting:
			add("rebaseRules", i, fmt.Sprintf("copy %s from [%s]", pathsText(rulePathsOf(r)), sourcesText(r.Sources)), r.ResourceMatchers, rulePathsOf(r)...)
		case r.Type == "copy":
			// a copy from new first keeps every value the manifest declares, so it gets no
			// mutation check, but it can restore a value the manifest no longer declares
			if h := add("rebaseRules", i, fmt.Sprintf("copy %s from [%s]", pathsText(rulePathsOf(r)), sourcesText(r.Sources)), r.ResourceMatchers, rulePathsOf(r)...); h != nil {
				h.keepsDeclared = true
			}
		case r.Type == "remove":
			if h := add("rebaseRules", i, "remove "+pathsText(rulePathsOf(r)), r.ResourceMatchers, rulePathsOf(r)...); h != nil {
				h.removes = true
			}
		}
	}
	// kapp v0.66.0 applies both kinds of exclusion rules to every resource: it calls their mods'
	// Apply, which never asks the rule's resourceMatchers (diff/resource_with_history.go
	// ResourceWithoutHistory.Resource, diff/resource_with_removed_fields.go; resources/
	// mod_field_remove.go), so a rule matching no resource hides the path in all of them
	everyResource := []ctlconf.ResourceMatcher{{AllMatcher: &ctlconf.AllMatcher{}}}
	for i, r := range cfg.DiffAgainstExistingFieldExclusionRules {
		add("diffAgainstExistingFieldExclusionRules", i, "removed from both sides before diffing: "+lint.FormatPath(r.Path), everyResource, r.Path)
	}
	for i, r := range cfg.DiffAgainstLastAppliedFieldExclusionRules {
		if h := add("diffAgainstLastAppliedFieldExclusionRules", i, "ignored when kapp checks its last-applied copy: "+lint.FormatPath(r.Path), everyResource, r.Path); h != nil {
			h.lastAppliedCheck = true
		}
	}
	for i, r := range cfg.OwnershipLabelRules {
		if h := add("ownershipLabelRules", i, "kapp's labels written into "+lint.FormatPath(r.Path), r.ResourceMatchers, r.Path); h != nil {
			h.kappLabels = true
		}
	}
	for i, r := range cfg.LabelScopingRules {
		if h := add("labelScopingRules", i, "kapp's app label written into "+lint.FormatPath(r.Path), r.ResourceMatchers, r.Path); h != nil {
			h.kappLabels = true
		}
	}
	for i, r := range cfg.TemplateRules {
		for j, ref := range r.AffectedResources.ObjectReferences {
			if h := add("templateRules", i, "versioned names written into "+lint.FormatPath(ref.Path), ref.ResourceMatchers, ref.Path); h != nil {
				h.At.Key += fmt.Sprintf(".affectedResources.objectReferences[%d]", j)
				h.matcherAt = func(sub ...any) RuleAt {
					return at("templateRules", i, append([]any{"affectedResources", "objectReferences", j, "resourceMatchers"}, sub...)...)
				}
			}
		}
	}
	if len(cfg.AdditionalLabels) > 0 {
		keys := slices.Sorted(maps.Keys(cfg.AdditionalLabels))
		noun := "label "
		if len(keys) > 1 {
			noun = "labels "
		}
		if h := add("additionalLabels", -1, "kapp writes "+noun+strings.Join(keys, ", "), []ctlconf.ResourceMatcher{{AllMatcher: &ctlconf.AllMatcher{}}}); h != nil {
			h.keys, h.wrote = map[string]bool{}, cfg.AdditionalLabels
			for _, k := range keys {
				h.keys[k] = true
			}
		}
	}
	return out
}

func rulePathsOf(r ctlconf.RebaseRule) []ctlres.Path {
	if len(r.Path) > 0 {
		return []ctlres.Path{r.Path}
	}
	return r.Paths
}

func sourcesText(srcs []ctlres.FieldCopyModSource) string {
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}

func pathsText(ps []ctlres.Path) string {
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = lint.FormatPath(p)
	}
	return strings.Join(texts, " ")
}

func kappConfig(o load.Object) (ctlconf.Config, bool) {
	cfg, err := verify.ConfigOf(ctlres.NewResourceUnstructured(*o.Unstructured, ctlres.ResourceType{}))
	return cfg, err == nil
}

// Matches is kapp's matcher on the object being rebased (the desired one).
func (c Rule) Matches(desired *unstructured.Unstructured) bool {
	return c.matcher.MatchesObject(desired)
}

// Describe renders the rule as its author wrote it: copy [spec] from [existing, new], or ytt
// overlay.
func (c Rule) Describe() string { return c.what }

// Generated reads the rules of cfg, the Config generate writes (emit.Config), as Rules reads any
// Config; hints are the paths each of its ytt rules rewrites, in the order they are written
// (synth knows them: trying only those keeps the check of a generated ytt rule as cheap as that
// of a plain copy).
func Generated(cfg ctlconf.Config, hints [][]fielddiff.Path) []Rule {
	kappglobal.Prepare()
	rules := rulesOf(cfg, func(key string, i int, _ ...any) RuleAt { // PendingDeletes names none of them
		if i >= 0 {
			key += fmt.Sprintf("[%d]", i)
		}
		return RuleAt{Key: key, Generated: true}
	})
	nth := map[int]int{} // rebaseRules index -> which ytt rule it is
	for i, r := range cfg.RebaseRules {
		if r.Ytt != nil {
			nth[i] = len(nth)
		}
	}
	for i, r := range rules {
		if n, ok := nth[r.index]; ok && r.ytt != nil && n < len(hints) {
			rules[i].hint = hints[n]
		}
	}
	return rules
}

// removedCovered names the ghost diffs of resource id that kapp's built-in rules (or the
// package's) remove and a remove rule in force brings back: kapp copies such a field from the live
// object (a PVC's protection finalizer), a remove rule after it takes the field out of what kapp
// applies again, and kapp's update drops it from the live object. kapp's bare diff named no field
// and no rule, and a hand rule "silencing the finalizer diff" read as a call for more rules
// (newcomer7 N7-11).
func removedCovered(in Input, id pair.Identity) []Residual {
	var out []Residual
	for _, r := range in.Report.Resources {
		if r.ID != id {
			continue
		}
		blamed := newBlame(in).resource(r)
		if blamed.desired == nil {
			return nil
		}
		for _, f := range r.Findings {
			if !f.Class.Ghost() || !f.Covered() {
				continue
			}
			for i, rule := range in.Rules {
				if rule.removes && blamed.matched(i) && blamed.reachesIn(i, f.Path, blamed.objs[:2]) {
					f.Evidence = fmt.Sprintf("%s (%s) removes it from what kapp applies, after kapp's built-in rules copied it from the live object: kapp's update drops it from the live object, on every deploy; remove the rule (%s)",
						rule.At, rule.what, f.Evidence)
					out = append(out, Residual{id, f})
					break
				}
			}
		}
	}
	return out
}
