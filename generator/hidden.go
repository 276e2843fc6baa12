package generator

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
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

// Hidden is a declared field whose change made in Git a rule hides: kapp's engine no longer
// reports the changed value, and no manager other than the manifest's applier owns the field.
type Hidden struct {
	Resource pair.Identity
	Path     string
	Rule     string // the rule that lets the cluster win there: where it is written and what it does
	// At is where the rule is written; zero when no one rule hides the change (the rules in
	// force together).
	At RuleAt
}

// RuleAt is where a rule kapp applies is written, for a finding to point at it.
type RuleAt struct {
	File string // as given ("-": stdin); for a document ytt rendered, what was rendered
	Doc  int    // 1-based document in File (in ytt's output, when rendered)
	Line int    // the rule's line in File, else its document's; 0 when rendered (ytt's output has the lines)
	Key  string // the Config key and the rule's index there (rebaseRules[2]), inside data["config.yml"] for a labelled ConfigMap
}

// String names the rule as text findings do: file:line, document, key.
func (w RuleAt) String() string {
	if w.Line == 0 {
		return fmt.Sprintf("%s, ytt output document %d, %s", w.File, w.Doc, w.Key)
	}
	return fmt.Sprintf("%s:%d, document %d, %s", w.File, w.Line, w.Doc, w.Key)
}

// HidingRule is one rule of a kapp Config that can make kapp ignore or rewrite a declared field,
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
type HidingRule struct {
	At      RuleAt
	what    string // the rule as its author wrote it
	paths   []ctlres.Path
	keys    map[string]bool                  // additionalLabels: the declared map entries of these keys, wherever they stand
	ytt     []ctlres.ResourceModWithMultiple // a ytt rebase rule's mods: it rewrites what they rewrite
	matcher kappmatch.Matcher
}

// HidingRules reads the rules that can hide a declared field from Configs and labelled
// ConfigMaps with kapp's own parser, each with where it is written (r reads the files for the
// rules' lines). A Config kapp cannot read has no such rules here: kapp's engine (and lint)
// report it.
func HidingRules(configs []load.Object, r *load.Reader) []HidingRule {
	kappglobal.Prepare()
	lines := lint.NewLines(r)
	var out []HidingRule
	for _, o := range configs {
		cfg, ok := kappConfig(o)
		if !ok {
			continue
		}
		add := func(key string, i int, what string, ms []ctlconf.ResourceMatcher, paths ...ctlres.Path) *HidingRule {
			m, ok := kappmatch.New(ms)
			if !ok {
				return nil
			}
			at := RuleAt{File: o.Source.File, Doc: o.Source.Doc, Key: key}
			if i >= 0 {
				at.Key += fmt.Sprintf("[%d]", i)
			}
			if load.IsLabelledConfig(o) {
				at.Key = `data["` + kappconv.ConfigKey + `"] ` + at.Key
			}
			if rendered, ok := yttrender.RenderedFrom(o.Source.File); ok {
				at.File = rendered
			} else {
				at.Line = lines.Of(o, key, i)
			}
			out = append(out, HidingRule{At: at, what: what, paths: paths, matcher: m})
			return &out[len(out)-1]
		}
		for i, r := range cfg.RebaseRules {
			switch {
			case r.Ytt != nil && r.Ytt.OverlayContractV1 != nil:
				if h := add("rebaseRules", i, "ytt overlay", r.ResourceMatchers); h != nil {
					h.ytt = r.AsMods()
				}
			case r.Ytt != nil:
			case r.Type == "copy" && len(r.Sources) > 0 && r.Sources[0] == ctlres.FieldCopyModSourceExisting:
				sources := make([]string, len(r.Sources))
				for i, s := range r.Sources {
					sources[i] = string(s)
				}
				add("rebaseRules", i, fmt.Sprintf("copy %s from [%s]", pathsText(rulePathsOf(r)), strings.Join(sources, ", ")), r.ResourceMatchers, rulePathsOf(r)...)
			case r.Type == "remove":
				add("rebaseRules", i, "remove "+pathsText(rulePathsOf(r)), r.ResourceMatchers, rulePathsOf(r)...)
			}
		}
		for i, r := range cfg.DiffAgainstExistingFieldExclusionRules {
			add("diffAgainstExistingFieldExclusionRules", i, "removed from both sides before diffing: "+lint.FormatPath(r.Path), r.ResourceMatchers, r.Path)
		}
		for i, r := range cfg.DiffAgainstLastAppliedFieldExclusionRules {
			add("diffAgainstLastAppliedFieldExclusionRules", i, "ignored when kapp checks its last-applied copy: "+lint.FormatPath(r.Path), r.ResourceMatchers, r.Path)
		}
		for i, r := range cfg.OwnershipLabelRules {
			add("ownershipLabelRules", i, "kapp's labels written into "+lint.FormatPath(r.Path), r.ResourceMatchers, r.Path)
		}
		for i, r := range cfg.LabelScopingRules {
			add("labelScopingRules", i, "kapp's app label written into "+lint.FormatPath(r.Path), r.ResourceMatchers, r.Path)
		}
		for i, r := range cfg.TemplateRules {
			for j, ref := range r.AffectedResources.ObjectReferences {
				if h := add("templateRules", i, "versioned names written into "+lint.FormatPath(ref.Path), ref.ResourceMatchers, ref.Path); h != nil {
					h.At.Key += fmt.Sprintf(".affectedResources.objectReferences[%d]", j)
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
				h.keys = map[string]bool{}
				for _, k := range keys {
					h.keys[k] = true
				}
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
func (c HidingRule) Matches(desired *unstructured.Unstructured) bool {
	return c.matcher.MatchesObject(desired)
}

// Describe renders the rule as its author wrote it: copy [spec] from [existing, new], or ytt
// overlay.
func (c HidingRule) Describe() string { return c.what }

// HiddenBy runs the mutation check (runMutations, as generate does on its own rules) on rules:
// every scalar value a matched desired object declares where the rule may hide it (declared) is
// changed, one at a time, and kapp's engine with configs must still report an update under both
// bases, unless the classification found a manager other than the applier owning the field
// (class controller, with its evidence). verified holds kapp's results on unmutated pairs with
// the same configs (check's verdict), reused as the mutations' baselines where they provably
// answer the same question; nil: kapp is asked here.
func (a *Analysis) HiddenBy(rules []HidingRule, configs []*unstructured.Unstructured, verified map[pair.Identity]verify.Result) ([]Hidden, error) {
	var all []mutation
	for _, r := range a.Report.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			return nil, err
		}
		for ri, rule := range rules {
			if !rule.Matches(desired.Unstructured) {
				continue
			}
			for _, c := range rule.declared(desired.Unstructured, live.Unstructured) {
				all = append(all, mutation{rule: ri, r: r, path: c.path, value: c.value, what: fielddiff.ByKey(desired.Unstructured, c.path).String(), by: rule.At.String() + " (" + rule.Describe() + ")", at: rule.At,
					controller: controlled(r, desired.Object, c.path),
					single:     !batchable(desired.Unstructured, live.Unstructured)})
			}
		}
	}
	shown, err := runMutations(all, configs, a.Inputs.Progress, verified)
	if err != nil {
		return nil, err
	}
	var out []Hidden
	seen := map[string]bool{} // two rules over one field: the first names it
	for i, m := range all {
		key := m.r.ID.String() + " " + m.what
		if shown[i] || m.controller || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Hidden{Resource: m.r.ID, Path: m.what, Rule: m.by, At: m.at})
	}
	return out, nil
}

// candidate is a declared scalar and the value it is changed to.
type candidate struct {
	path  fielddiff.Path
	value any
}

// declared lists the scalars desired declares whose change the rule may hide, each with its
// mutated value: those under the rule's paths; for additionalLabels those of its keys, wherever
// they stand (kapp's ownership label rules, its own and the Configs', decide where it writes
// them, and kapp's engine whether that hides them); those a ytt rule rewrites (yttWrites).
func (c HidingRule) declared(desired, live *unstructured.Unstructured) []candidate {
	if c.ytt != nil {
		return c.yttWrites(desired, live)
	}
	var ps []fielddiff.Path
	if c.keys != nil {
		for _, p := range declaredUnder(desired.Object, nil) {
			if last := p[len(p)-1]; last.FieldName != nil && c.keys[*last.FieldName] {
				ps = append(ps, p)
			}
		}
	}
	for _, kp := range c.paths {
		ps = append(ps, declaredUnder(desired.Object, kp)...)
	}
	out := make([]candidate, len(ps))
	for i, p := range ps {
		val, _ := p.Get(desired.Object)
		mutated, _ := mutate(val)
		out[i] = candidate{p, mutated}
	}
	return out
}

// yttWrites lists the scalars desired declares that the ytt rule rewrites: with one of them
// changed, kapp's own rebase code running this rule alone (live as the existing object) leaves
// another value there, or none. An overlay can write any field, and whether it does may depend
// on the values (a list item selected by its name), so every declared scalar is tried, one at a
// time: one ytt evaluation each, cheaper than the kapp diff under both bases each candidate then
// gets with every rule. A change the rule fails on is no candidate: kapp's deploy would stop on
// it, not hide it.
func (c HidingRule) yttWrites(desired, live *unstructured.Unstructured) []candidate {
	mods := slices.Clone(c.ytt)
	for i, m := range mods {
		mods[i] = kappglobal.SerialYTT(m) // the one ytt lock: ytt's package-level state is not safe for concurrent runs
	}
	existing := ctlres.NewResourceUnstructured(*live, ctlres.ResourceType{})
	var out []candidate
	for _, p := range declaredUnder(desired.Object, nil) {
		val, _ := p.Get(desired.Object)
		mutated, _ := mutate(val)
		d := desired.DeepCopy()
		p.Set(d.Object, mutated)
		rebased, ok := rebaseAlone(mods, existing, d)
		if !ok {
			continue
		}
		if got, ok := p.Get(rebased); !ok || !fielddiff.Equal(got, mutated) {
			out = append(out, candidate{p, mutated})
		}
	}
	return out
}

// rebaseAlone is kapp's rebase of desired with mods only; false where kapp fails or panics.
func rebaseAlone(mods []ctlres.ResourceModWithMultiple, existing ctlres.Resource, desired *unstructured.Unstructured) (obj map[string]any, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	res, err := ctldiff.NewRebasedResource(existing, ctlres.NewResourceUnstructured(*desired, ctlres.ResourceType{}), mods).Resource()
	if err != nil {
		return nil, false
	}
	return res.UnstructuredObject(), true
}

// identity fields name the object: changing them makes kapp see another object, not an update.
var identity = []fielddiff.Path{fielddiff.FromFields([]string{"apiVersion"}), fielddiff.FromFields([]string{"kind"}),
	fielddiff.FromFields([]string{"metadata", "name"}), fielddiff.FromFields([]string{"metadata", "namespace"})}

// declaredUnder lists the scalar values obj declares at or below kapp's path kp, list items by
// index (as kapp's path addresses them).
func declaredUnder(obj map[string]any, kp ctlres.Path) []fielddiff.Path {
	var out []fielddiff.Path
	var leaves func(v any, at fielddiff.Path)
	leaves = func(v any, at fielddiff.Path) {
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				leaves(t[k], with(at, fieldpath.PathElement{FieldName: &k}))
			}
		case []any:
			for i := range t {
				leaves(t[i], with(at, fieldpath.PathElement{Index: &i}))
			}
		default:
			if _, ok := mutate(v); ok && !slices.ContainsFunc(identity, func(q fielddiff.Path) bool { return q.String() == at.String() }) {
				out = append(out, at)
			}
		}
	}
	var walk func(v any, parts ctlres.Path, at fielddiff.Path)
	walk = func(v any, parts ctlres.Path, at fielddiff.Path) {
		if len(parts) == 0 {
			leaves(v, at)
			return
		}
		part, rest := parts[0], parts[1:]
		m, _ := v.(map[string]any)
		l, _ := v.([]any)
		switch {
		case part.MapKey != nil:
			if c, ok := m[*part.MapKey]; ok {
				walk(c, rest, with(at, fieldpath.PathElement{FieldName: part.MapKey}))
			}
		case part.Regex != nil && part.Regex.Regex != nil:
			re, err := regexp.Compile(*part.Regex.Regex)
			if err != nil {
				return
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				if re.MatchString(k) {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(m[k], rest, with(at, fieldpath.PathElement{FieldName: &k}))
			}
		case part.ArrayIndex != nil && part.ArrayIndex.All != nil:
			for i := range l {
				walk(l[i], rest, with(at, fieldpath.PathElement{Index: &i}))
			}
		case part.ArrayIndex != nil && part.ArrayIndex.Index != nil:
			if i := *part.ArrayIndex.Index; i >= 0 && i < len(l) {
				walk(l[i], rest, with(at, fieldpath.PathElement{Index: &i}))
			}
		}
	}
	walk(obj, kp, nil)
	return out
}

func with(p fielddiff.Path, pe fieldpath.PathElement) fielddiff.Path {
	return append(append(fielddiff.Path{}, p...), pe)
}

// controlled reports whether classification found a manager other than the applier owning the
// field at p (by index in obj), or a value holding it: a controller finding at it or above it.
func controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	for _, f := range r.Findings {
		if f.Class != classify.Controller {
			continue
		}
		for _, q := range []fielddiff.Path{f.Path, f.Whole} {
			if q != nil && p.HasPrefix(byIndex(obj, q)) {
				return true
			}
		}
	}
	return false
}

// byIndex rewrites list items selected by key or value into their index in obj, as kapp's paths
// and declaredUnder address them.
func byIndex(obj map[string]any, p fielddiff.Path) fielddiff.Path {
	x := "x"
	step := func(cur any, pe fieldpath.PathElement) (any, bool) { // Get from any value, not only a map
		return fielddiff.Path{{FieldName: &x}, pe}.Get(map[string]any{x: cur})
	}
	out := make(fielddiff.Path, 0, len(p))
	var cur any = obj
	for _, pe := range p {
		if l, ok := cur.([]any); ok && pe.Index == nil {
			i := slices.IndexFunc(l, func(item any) bool {
				_, found := step([]any{item}, pe)
				return found
			})
			if i < 0 {
				return p // not in the desired object: nothing declared there
			}
			pe = fieldpath.PathElement{Index: &i}
		}
		out = append(out, pe)
		cur, _ = step(cur, pe)
	}
	return out
}
