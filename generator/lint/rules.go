package lint

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/words"
)

// checker lints one Config document.
type checker struct {
	*env
	doc      *doc
	rule     int // index of the rule being checked, -1 for the document
	findings []Finding
}

func (c *checker) add(sev Severity, a at, msg, suggestion string) {
	c.findings = append(c.findings, Finding{Severity: sev, File: c.doc.file, Line: c.line(a), Rule: c.rule,
		Message: msg, Suggestion: suggestion})
}

// line is the line of a's key, else of its value, else of the document.
func (c *checker) line(a at) int {
	n := a.key
	if n == nil {
		n = a.n
	}
	if n == nil || c.doc.node == nil {
		return c.doc.line0
	}
	return n.Line + c.doc.offset
}

var (
	configFields  = fieldsOf(reflect.TypeOf(ctlconf.Config{}))
	matcherType   = reflect.TypeOf(ctlconf.ResourceMatcher{})
	matcherFields = fieldsOf(matcherType)
)

func (c *checker) config() {
	root := at{v: c.doc.obj, n: c.doc.node}
	for _, k := range root.keys() {
		if k == "metadata" { // kapp ignores it; Configs often carry one by habit
			continue
		}
		if _, known := pick(names(configFields), k); !known {
			c.unknownKey(root, k, "Config", names(configFields))
		}
	}
	rules := root.field("rebaseRules")
	if _, isList := rules.v.([]any); rules.v != nil && !isList {
		c.add(Error, rules, "rebaseRules is not a list: kapp rejects the Config", "")
		return
	}
	for i, r := range rules.items() {
		c.rule = i
		c.checkRule(r)
	}
}

func (c *checker) checkRule(a at) {
	c.unknownKeys(a, reflect.TypeOf(ctlconf.RebaseRule{}), "rebase rule")
	var r ctlconf.RebaseRule
	if err := decode(a.v, &r); err != nil {
		c.add(Error, a, "kapp cannot read the rule: "+err.Error(), "")
		return
	}
	valid := c.matchers(a, r)
	if r.Ytt != nil {
		c.yttRule(a, r)
	} else {
		c.copyRule(a, r)
	}
	c.duplicates(a, r)
	c.broad(a, r)
	c.replicas(a, r)
	c.hidden(a, r)
	if c.desired {
		c.unmatched(a, r, valid)
	}
}

// decode reads v into kapp's struct the way kapp does: sigs.k8s.io/yaml, lenient.
func decode(v, out any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sigsyaml.Unmarshal(js, out)
}

func (c *checker) yttRule(a at, r ctlconf.RebaseRule) {
	extra := []struct {
		key string
		set bool
	}{{"path", len(r.Path) > 0}, {"paths", len(r.Paths) > 0}, {"type", r.Type != ""}, {"sources", len(r.Sources) > 0}}
	for _, e := range extra {
		if e.set {
			c.add(Error, a.field(e.key), e.key+" next to ytt: kapp rejects the Config (only resourceMatchers may accompany a ytt rule)",
				"put the ytt rule and the "+e.key+" in rules of their own")
		}
	}
	if r.Ytt.OverlayContractV1 == nil {
		c.add(Error, a.field("ytt"), "ytt rule without overlayContractV1: kapp panics when it applies the rule", "")
	}
}

// sourceAliases are words authors use for kapp's two sources.
var sourceAliases = map[string]string{"live": "existing", "cluster": "existing", "current": "existing",
	"old": "existing", "desired": "new", "manifest": "new", "git": "new"}

func (c *checker) copyRule(a at, r ctlconf.RebaseRule) {
	switch {
	case len(r.Path) > 0 && len(r.Paths) > 0:
		c.add(Error, a.field("paths"), "both path and paths: kapp rejects the Config", "move path into paths")
	case len(r.Path) == 0 && len(r.Paths) == 0:
		c.add(Error, a, "neither path nor paths: kapp rejects the Config", "")
	}
	typ := a.field("type")
	switch r.Type {
	case "copy":
		if len(r.Sources) == 0 {
			c.add(Error, typ, "copy without sources: the rule copies nothing",
				"sources: [new, existing] (your value wins) or [existing, new] (the cluster's value wins)")
		}
		fixed := make([]string, len(r.Sources))
		for i, s := range r.Sources {
			fixed[i] = string(s)
			if alias, ok := sourceAliases[strings.ToLower(fixed[i])]; ok {
				fixed[i] = alias
			}
		}
		for i, item := range a.field("sources").items() {
			s := string(r.Sources[i])
			if s == "new" || s == "existing" {
				continue
			}
			suggestion := "existing is the live object, new the manifest"
			if fixed[i] != s {
				suggestion = fmt.Sprintf("sources: [%s] (%s)", strings.Join(fixed, ", "), suggestion)
			}
			c.add(Error, item, fmt.Sprintf("source %q is not new or existing: kapp silently skips it", s), suggestion)
		}
	case "remove":
	case "":
		c.add(Error, a, "no type: kapp panics when it applies the rule", "type: copy or type: remove")
	default:
		c.add(Error, typ, fmt.Sprintf("type %q is not copy or remove: kapp panics when it applies the rule", r.Type),
			"type: copy or type: remove")
	}
	for _, p := range rulePaths(a, r) {
		c.path(p)
	}
}

type rulePath struct {
	p  ctlres.Path
	at at
}

func rulePaths(a at, r ctlconf.RebaseRule) []rulePath {
	var out []rulePath
	if len(r.Path) > 0 {
		out = append(out, rulePath{r.Path, a.field("path")})
	}
	for i, item := range a.field("paths").items() {
		out = append(out, rulePath{r.Paths[i], item})
	}
	return out
}

func (c *checker) path(p rulePath) {
	if len(p.p) == 0 {
		c.add(Error, p.at, "empty path: kapp panics when it applies the rule", "")
		return
	}
	parts := p.at.items()
	partAt := func(i int) at {
		if i < len(parts) {
			return parts[i]
		}
		return p.at
	}
	for i, part := range p.p {
		switch {
		case part.Regex != nil && part.Regex.Regex != nil:
			if _, err := regexp.Compile(*part.Regex.Regex); err != nil {
				c.add(Error, partAt(i), "invalid regex: "+err.Error()+": kapp fails when it applies the rule", "")
			}
		case part.ArrayIndex != nil && part.ArrayIndex.Index == nil && part.ArrayIndex.All == nil:
			c.add(Error, partAt(i), "path part is none of KEY, {regex: ...}, {index: N}, {allIndexes: true}: kapp panics when it applies the rule", "")
		}
	}
	if last := p.p[len(p.p)-1]; last.ArrayIndex != nil && (last.ArrayIndex.Index != nil || last.ArrayIndex.All != nil) {
		c.add(Error, partAt(len(p.p)-1), fmt.Sprintf(`path %s ends in a list index: kapp copies and removes map keys only (it fails with "Expected last part of the path to be map key")`, formatPath(p.p)),
			"end the path with a field of the items, [..., {allIndexes: true}, FIELD], or keep whole items with a ytt rule (rebasegen generate writes one)")
	}
}

func formatPath(p ctlres.Path) string {
	parts := make([]string, len(p))
	for i, part := range p {
		switch {
		case part.MapKey != nil:
			parts[i] = *part.MapKey
		case part.Regex != nil && part.Regex.Regex != nil:
			parts[i] = fmt.Sprintf("{regex: %q}", *part.Regex.Regex)
		case part.ArrayIndex != nil && part.ArrayIndex.Index != nil:
			parts[i] = fmt.Sprintf("{index: %d}", *part.ArrayIndex.Index)
		case part.ArrayIndex != nil && part.ArrayIndex.All != nil:
			parts[i] = "{allIndexes: true}"
		default:
			parts[i] = "{}"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// keyPath is the dotted path when every part is a map key, else "".
func keyPath(p ctlres.Path) string {
	var keys []string
	for _, part := range p {
		if part.MapKey == nil {
			return ""
		}
		keys = append(keys, *part.MapKey)
	}
	return strings.Join(keys, ".")
}

// matchers checks every matcher; valid[i] says whether top-level matcher i can match anything.
func (c *checker) matchers(a at, r ctlconf.RebaseRule) (valid []bool) {
	list := a.field("resourceMatchers")
	if len(r.ResourceMatchers) == 0 {
		c.add(Warning, orElse(list, a), "no resourceMatchers: the rule applies to nothing", "")
	}
	for i, item := range list.items() {
		valid = append(valid, c.matcher(r.ResourceMatchers[i], item))
	}
	return valid
}

func orElse(a, b at) at {
	if a.present() {
		return a
	}
	return b
}

func nth(list at, i int) at {
	if items := list.items(); i < len(items) {
		return items[i]
	}
	return list
}

func (c *checker) matcher(m ctlconf.ResourceMatcher, a at) bool {
	var set []string
	v := reflect.ValueOf(m)
	for i := 0; i < v.NumField(); i++ {
		if !v.Field(i).IsNil() {
			set = append(set, jsonName(matcherType.Field(i)))
		}
	}
	switch len(set) {
	case 0:
		c.add(Error, a, `empty matcher: kapp panics ("Unknown resource matcher specified")`, "one of: "+strings.Join(names(matcherFields), ", "))
		return false
	case 1:
	default:
		c.add(Error, a, fmt.Sprintf("one matcher sets %s: kapp uses one of them and ignores the rest", strings.Join(set, " and ")),
			"one matcher per list item (any of them matches), or andMatcher")
	}
	ok := true
	if m.AnyMatcher != nil {
		for i, sub := range m.AnyMatcher.Matchers {
			ok = c.matcher(sub, nth(a.field("anyMatcher").field("matchers"), i)) && ok
		}
	}
	if m.AndMatcher != nil {
		for i, sub := range m.AndMatcher.Matchers {
			ok = c.matcher(sub, nth(a.field("andMatcher").field("matchers"), i)) && ok
		}
	}
	if m.NotMatcher != nil {
		ok = c.matcher(m.NotMatcher.Matcher, orElse(a.field("notMatcher").field("matcher"), a)) && ok
	}
	if k := m.KindNamespaceNameMatcher; k != nil && k.Namespace != "" && c.clusterScoped(k.Kind) {
		knn := a.field("kindNamespaceNameMatcher")
		c.add(Error, orElse(knn.field("namespace"), knn),
			fmt.Sprintf("kindNamespaceNameMatcher: %s is cluster-scoped, so namespace %q never matches (kapp compares namespaces exactly and cluster-scoped objects have none)", k.Kind, k.Namespace),
			fmt.Sprintf(`kindNamespaceNameMatcher: {kind: %s, namespace: "", name: %s}`, k.Kind, k.Name))
		ok = false
	}
	return ok
}

// duplicates reports paths kapp's built-in rules already rebase the same way: kapp applies its
// defaults first, so repeating them changes nothing.
func (c *checker) duplicates(a at, r ctlconf.RebaseRule) {
	if len(r.ResourceMatchers) == 0 {
		return
	}
	for _, d := range c.defaults {
		if r.Ytt != nil && d.Ytt != nil && reflect.DeepEqual(r.Ytt, d.Ytt) && subset(r.ResourceMatchers, d.ResourceMatchers) {
			c.add(Warning, a, "ytt rule repeats kapp's built-in rule for the same resources: kapp applies its defaults before any Config", "remove it")
			return
		}
	}
	for _, p := range rulePaths(a, r) {
		for _, d := range c.defaults {
			if d.Ytt == nil && d.Type == r.Type && slices.Equal(d.Sources, r.Sources) &&
				subset(r.ResourceMatchers, d.ResourceMatchers) &&
				slices.ContainsFunc(slices.Concat(d.Paths, []ctlres.Path{d.Path}), func(q ctlres.Path) bool { return reflect.DeepEqual(q, p.p) }) {
				c.add(Warning, p.at, fmt.Sprintf("path %s repeats kapp's built-in rebase rule (same type, sources and matchers): kapp applies its defaults before any Config, so this changes nothing", formatPath(p.p)),
					"remove it (kapp deploy-config prints the built-in rules)")
				break
			}
		}
	}
}

// subset: kapp ORs a rule's matchers, so a rule whose matchers are all among the default's
// applies to no resource the default does not.
func subset(ms, of []ctlconf.ResourceMatcher) bool {
	for _, m := range ms {
		if !slices.ContainsFunc(of, func(o ctlconf.ResourceMatcher) bool { return reflect.DeepEqual(m, o) }) {
			return false
		}
	}
	return true
}

// subtrees are paths that rebase everything below them (field-pitfalls 13).
var subtrees = map[string]string{
	"spec":                 "any change made in Git under it is hidden too",
	"data":                 "any change made in Git under it is hidden too",
	"metadata.labels":      "any label changed in Git is hidden too",
	"metadata.annotations": "any annotation changed in Git is hidden too, and copying them from the cluster brings kapp's own annotations back",
	"status":               "status needs no rule (kapp ignores the live status when it diffs), and copying it from the cluster adds a diff instead of removing one",
}

func (c *checker) broad(a at, r ctlconf.RebaseRule) {
	narrower, computed := "", false
	suggest := func(fallback string) string {
		if !computed {
			narrower, computed = c.narrower(a, r), true
		}
		if narrower != "" {
			return narrower
		}
		return fallback
	}
	for _, p := range rulePaths(a, r) {
		key := keyPath(p.p)
		if why, ok := subtrees[key]; ok && !onlyWhereEmpty(r, key) {
			fallback := "rule only the fields the cluster sets (lint with --live lists what rebasegen generate would write)"
			if key == "status" {
				fallback = "remove the path"
			}
			c.add(Warning, p.at, fmt.Sprintf("path %s rebases a whole subtree: %s", formatPath(p.p), why), suggest(fallback))
		}
	}
	for i, item := range a.field("resourceMatchers").items() {
		if r.ResourceMatchers[i].AllMatcher != nil {
			c.add(Warning, orElse(item.field("allMatcher"), item), "allMatcher: the rule applies to every resource kapp deploys and hides changes under its paths on all of them",
				suggest("match only the kinds (apiVersionKindMatcher) or resources (kindNamespaceNameMatcher) that need the rule"))
		}
	}
}

// onlyWhereEmpty reports a copy from [new, ...] whose every matcher requires the path to be empty
// (andMatcher with an emptyFieldMatcher on it): it applies only where Git declares nothing there,
// so it cannot hide a value changed in Git.
func onlyWhereEmpty(r ctlconf.RebaseRule, key string) bool {
	if r.Type != "copy" || len(r.Sources) == 0 || r.Sources[0] != ctlres.FieldCopyModSourceNew || len(r.ResourceMatchers) == 0 {
		return false
	}
	for _, m := range r.ResourceMatchers {
		if m.AndMatcher == nil || !slices.ContainsFunc(m.AndMatcher.Matchers, func(m ctlconf.ResourceMatcher) bool {
			return m.EmptyFieldMatcher != nil && keyPath(m.EmptyFieldMatcher.Path) == key
		}) {
			return false
		}
	}
	return true
}

// scaledKinds have a spec.replicas an autoscaler may own.
var scaledKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "ReplicaSet": true, "ReplicationController": true}

// replicas reports a rule that lets the cluster's spec.replicas win on every workload of a kind
// when no autoscaler among the desired objects scales some of them: a replica count changed in
// Git is then silently ignored there. Rules naming each resource are deliberate (a job may scale
// it) and left alone.
func (c *checker) replicas(a at, r ctlconf.RebaseRule) {
	if r.Type != "copy" || len(r.Sources) == 0 || r.Sources[0] != ctlres.FieldCopyModSourceExisting ||
		!slices.ContainsFunc(r.ResourceMatchers, func(m ctlconf.ResourceMatcher) bool { return m.KindNamespaceNameMatcher == nil }) {
		return
	}
	for _, p := range rulePaths(a, r) {
		if keyPath(p.p) != "spec.replicas" {
			continue
		}
		targets := c.scaleTargets()
		var unscaled, scaled []string
		for _, res := range c.matching(c.resources, r.ResourceMatchers) {
			switch {
			case !scaledKinds[res.id.Kind]:
			case targets[res.id]:
				scaled = append(scaled, fmt.Sprintf("kindNamespaceNameMatcher: {kind: %s, namespace: %s, name: %s}", res.id.Kind, res.id.Namespace, res.id.Name))
			default:
				unscaled = append(unscaled, res.id.String())
			}
		}
		if len(unscaled) == 0 {
			continue
		}
		suggestion := "remove the rule: no autoscaler among the desired objects scales what it matches"
		if len(scaled) > 0 {
			suggestion = "match only what an autoscaler scales: " + strings.Join(scaled, "; ")
		}
		c.add(Warning, p.at, fmt.Sprintf("path [spec, replicas] takes the cluster's replica count for %s no autoscaler among the desired objects scales (%s): a replica count changed in Git is ignored there",
			words.Count(len(unscaled), "resource"), strings.Join(unscaled, ", ")), suggestion)
	}
}

// scaleTargets are what desired autoscalers scale (classify.ScaleTarget: HorizontalPodAutoscalers
// and KEDA ScaledObjects, which create an HPA at runtime).
func (c *checker) scaleTargets() map[pair.Identity]bool {
	out := map[pair.Identity]bool{}
	for _, res := range c.resources {
		if id, ok := classify.ScaleTarget(res.obj, res.id.Namespace); ok {
			out[id] = true
		}
	}
	return out
}

// unmatched reports matchers that match none of the desired objects: a stale apiVersion, a
// renamed resource, a kind the package no longer ships.
func (c *checker) unmatched(a at, r ctlconf.RebaseRule, valid []bool) {
	for i, item := range a.field("resourceMatchers").items() {
		m := r.ResourceMatchers[i]
		if !valid[i] || m.AllMatcher != nil || len(c.matching(c.resources, []ctlconf.ResourceMatcher{m})) > 0 {
			continue
		}
		c.add(Warning, item, describe(item)+" matches none of the desired objects", c.nearMiss(m))
	}
}

// describe renders a matcher item as flow YAML: apiVersionKindMatcher {apiVersion: apps/v1, kind: Deployment}.
func describe(item at) string {
	var parts []string
	for _, k := range item.keys() {
		s := k + " " + flow(item.field(k).v)
		if len(s) > 120 {
			s = k
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func flow(v any) string {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + ": " + flow(t[k])
		}
		return "{" + strings.Join(keys, ", ") + "}"
	case []any:
		items := make([]string, len(t))
		for i, x := range t {
			items[i] = flow(x)
		}
		return "[" + strings.Join(items, ", ") + "]"
	case string:
		if t == "" {
			return `""`
		}
		return t
	}
	return fmt.Sprint(v)
}

// nearMiss says what the desired objects of the matcher's kind look like.
func (c *checker) nearMiss(m ctlconf.ResourceMatcher) string {
	var kind, what string
	var show func(resource) string
	switch {
	case m.APIVersionKindMatcher != nil:
		kind, what = m.APIVersionKindMatcher.Kind, "apiVersion"
		show = func(r resource) string { return r.obj.GetAPIVersion() }
	case m.APIGroupKindMatcher != nil:
		kind, what = m.APIGroupKindMatcher.Kind, "apiGroup"
		show = func(r resource) string { return fmt.Sprintf("%q", r.id.Group) }
	case m.KindNamespaceNameMatcher != nil:
		kind, what = m.KindNamespaceNameMatcher.Kind, "namespace/name"
		show = func(r resource) string { return r.id.Namespace + "/" + r.id.Name }
	default:
		return ""
	}
	seen := map[string]bool{}
	for _, r := range c.resources {
		if r.id.Kind == kind {
			seen[show(r)] = true
		}
	}
	if len(seen) == 0 {
		return fmt.Sprintf("no desired object is a %s: remove the matcher if the package no longer ships one", kind)
	}
	vals := make([]string, 0, len(seen))
	for v := range seen {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	return fmt.Sprintf("the desired %s objects have %s %s", kind, what, strings.Join(vals, ", "))
}

// matching returns the resources kapp's own matcher code says the matchers (OR-ed) select.
func (c *checker) matching(rs []resource, ms []ctlconf.ResourceMatcher) []resource {
	m, ok := kappMatcher(ms)
	if !ok {
		return nil
	}
	var out []resource
	for _, r := range rs {
		if matches(m, r.kapp) {
			out = append(out, r)
		}
	}
	return out
}

// kappMatcher recovers from the panic kapp raises for an empty matcher (reported separately).
func kappMatcher(ms []ctlconf.ResourceMatcher) (m ctlres.ResourceMatcher, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return ctlres.AnyMatcher{Matchers: ctlconf.ResourceMatchers(ms).AsResourceMatchers()}, true
}

func matches(m ctlres.ResourceMatcher, r ctlres.Resource) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return m.Matches(r)
}

// maxHidden keeps the list of hidden fields in a finding short.
const maxHidden = 5

// hidden reports a rule that hides a change made in Git to a declared field only the manifest's
// applier owns: the mutation check rebasegen generate and check run, on this rule alone.
func (c *checker) hidden(a at, r ctlconf.RebaseRule) {
	m, ok := a.v.(map[string]any)
	if c.hides == nil || !ok {
		return
	}
	fields, err := c.hides(m)
	if err != nil || len(fields) == 0 {
		return // a rule kapp cannot run is reported by the other checks
	}
	shown := fields[:min(len(fields), maxHidden)]
	more := ""
	if n := len(fields) - len(shown); n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	c.add(Error, a, fmt.Sprintf("the rule hides a change made in Git to %s only the manifest's applier owns (kapp reports no update when they change): %s%s",
		words.Count(len(fields), "declared field"), strings.Join(shown, ", "), more),
		c.narrower(a, r))
}
