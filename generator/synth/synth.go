package synth

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// Options control synthesis.
type Options struct {
	IncludeUnknown bool // rule unknown fields too (as defaults), with a warning each
	// OwnResources: rules for one install's own resources (OwnResources), as a rules Secret
	// writes them; verified in that form, which kapp matches otherwise than the kind's rules.
	OwnResources bool
}

// Synthesize builds rules for every ghost field not already covered by kapp's built-in rules
// or the package's own Config.
func Synthesize(rep *classify.Report, opts Options) Result {
	var res Result
	versions := apiVersionsByKind(rep)
	byKind := map[string]*group{}
	byResource := map[pair.Identity]*group{}
	warned := map[string][]pair.Identity{} // "path: warning" -> resources, reported once for all
	warn := func(id pair.Identity, f classify.Finding, msg string) {
		key := f.Path.String() + ": " + msg
		warned[key] = append(warned[key], id)
	}
	for _, r := range rep.Resources {
		for _, f := range r.Findings {
			if f.Covered() || !f.Ruled(opts.IncludeUnknown) {
				continue
			}
			f = f.AsRuled(r.ID)
			if f.Class == classify.Unknown {
				warn(r.ID, f, "unknown field ruled because of --include-unknown")
			}
			if f.Warning != "" {
				warn(r.ID, f, f.Warning)
			}
			var g *group
			// per kind, the manifest's value wins, but for a controller's field: an admission
			// plugin or webhook mutates every object of the kinds it matches, and adds only what
			// the manifest lacks
			if f.Class == classify.Controller {
				g = get(byResource, r.ID, func() Rule { return Rule{Sources: ControllerWins()} })
			} else {
				key := r.ID.Group + "/" + r.ID.Kind
				g = get(byKind, key, func() Rule {
					return Rule{Sources: UserWins(), Matchers: []Matcher{kindMatcher(r.ID, versions[key])}}
				})
			}
			g.res[r.ID] = true
			g.evid[evidenceSummary(f)] = true
			g.class[f.Class] = true
			if f.Class == classify.Controller {
				g.owners[f.Owner] = true
			}
			g.note(f)
			if rw, ok := switchRewrite(r, f); ok {
				g.rewrites[rw.Path.String()+"\x00"+fmt.Sprint(rw.From)+"\x00"+fmt.Sprint(rw.To)] = rw
				g.rewritten[r.ID] = true
				add(g.evidAt, rw.Path.String(), evidenceSummary(f))
				add(g.classAt, rw.Path.String(), f.Class)
				continue
			}
			switch {
			case f.Change == fielddiff.Canonical && f.Desired != classify.Masked:
				g.rewrites[f.Path.String()+"\x00"+fmt.Sprint(f.Desired)] = Rewrite{Path: f.Path, From: f.Desired, To: f.Live}
				g.rewritten[r.ID] = true
				continue
			case f.Change == fielddiff.Removed && f.Class == classify.Defaulted && IsEmptyValue(f.Desired) && removable(f.Path):
				// a declared empty value the server drops, the live object lacking the field: a
				// remove rule while the declared value is empty (Rule.Drop), no ytt
				g.dropped[f.Path.String()] = f.Path
				if g.droppedAt[f.Path.String()] == nil {
					g.droppedAt[f.Path.String()] = map[pair.Identity]bool{}
				}
				g.droppedAt[f.Path.String()][r.ID] = true
				continue
			case (f.Change == fielddiff.Removed || f.Change == fielddiff.Modified && f.Live == nil) && f.Class == classify.Defaulted && f.Desired != classify.Masked:
				// a declared zero value the server does not store: dropped from the manifest
				// only where it is exactly that value and the live object lacks the field, or
				// set to null where the live object holds null (rules: [] stored as null): no
				// copy can do it, kapp's copy takes the manifest's [] and the opposite order
				// would also copy a rule the user declares later; nor a remove: kapp's engine
				// then shows the live object's null as removed under the live base (measured on
				// fixtures/aggregated-clusterrole), and a scalar (false, "") is never empty to
				// kapp's emptyFieldMatcher, so its remove would hide a change made in Git
				g.rewrites[f.Path.String()+"\x00"+fmt.Sprint(f.Desired)] = Rewrite{Path: f.Path, From: f.Desired}
				g.rewritten[r.ID] = true
				continue
			case f.Change == fielddiff.Modified && f.Class == classify.Defaulted && f.Desired == nil:
				// a declared null the server stores as its type's empty value (classify says so
				// only for an empty live value): replaced only where the manifest writes null and
				// the live object holds that value. A Secret's value is masked: the empty []byte,
				// which the server writes as "".
				to := f.Live
				if to == classify.Masked {
					to = ""
				}
				g.rewrites[f.Path.String()+"\x00<nil>"] = Rewrite{Path: f.Path, To: to}
				g.rewritten[r.ID] = true
				continue
			case r.ID.Kind == "Secret" && f.Path.String() == "stringData":
				g.folded[r.ID] = true
				continue
			}
			if f.Whole != nil { // an item of an atomic list: kapp copies the list whole
				g.add(r.ID, f.Whole)
				continue
			}
			g.add(r.ID, f.Path)
			if m, ok := f.Live.(map[string]any); ok && len(m) == 0 && f.Change == fielddiff.Added {
				g.empty[f.Path.String()] = true
			}
			if f.Live == nil && f.Change == fielddiff.Added {
				g.nulls[f.Path.String()] = true
			}
		}
	}
	ofKind := map[string][]classify.Resource{} // what each kind rule matches
	for _, r := range rep.Resources {
		if key := r.ID.Group + "/" + r.ID.Kind; byKind[key] != nil {
			ofKind[key] = append(ofKind[key], r)
		}
	}
	var artifacts []*Rule
	byID := map[pair.Identity]classify.Resource{}
	for _, r := range rep.Resources {
		byID[r.ID] = r
	}
	// a CRD that does not read was refused by classification: without it every declared scalar
	// counts as one a copy from the live object would put back
	defaults, _ := classify.NewRemovals(rep)
	for key, g := range byKind {
		g.defaults = defaults
		for _, r := range g.kindRules(ofKind[key]) {
			res.Rules = append(res.Rules, ownedMaps(r, byID))
		}
		if g.artifact != nil {
			artifacts = append(artifacts, g.artifact)
		}
	}
	for _, g := range mergeSamePaths(byResource) {
		g.rule.Matchers = names(sortedIDs(g.res), func(id pair.Identity) Matcher { return kindMatcher(id, versions[id.Group+"/"+id.Kind]) })
		for _, r := range g.rules() {
			res.Rules = append(res.Rules, ownedMaps(r, byID))
		}
	}
	sort.SliceStable(res.Rules, func(i, j int) bool { return ruleKey(res.Rules[i]) < ruleKey(res.Rules[j]) })
	res.Rules = existingOnly(oneYTTRulePerResources(res.Rules), rep)
	if len(artifacts) > 0 {
		// first: its remove of every key would otherwise take back the keys later rules copy
		// from the live object (a controller's or a webhook's annotations)
		res.Rules = append([]Rule{artifactRule(artifacts)}, res.Rules...)
	}
	for msg, ids := range warned {
		res.Warnings = append(res.Warnings, resourceList(ids)+" "+msg)
	}
	sort.Strings(res.Warnings)
	return res
}

// resourceList names resources for a warning, the first three and how many more: at fleet scale
// one line per resource would bury everything else on stderr.
func resourceList(ids []pair.Identity) string {
	const shown = 3
	var names []string
	for _, id := range ids[:min(shown, len(ids))] {
		names = append(names, id.String())
	}
	s := strings.Join(names, ", ")
	if len(ids) > shown {
		s += fmt.Sprintf(" and %d more", len(ids)-shown)
	}
	return s
}

func kindMatcher(id pair.Identity, versions []string) Matcher {
	if len(versions) == 1 {
		return Matcher{APIVersionKind: &APIVersionKind{APIVersion: versions[0], Kind: id.Kind}}
	}
	return Matcher{APIGroupKind: &APIGroupKind{APIGroup: id.Group, Kind: id.Kind}}
}

// apiVersionsByKind lists the apiVersions the desired objects of each group/kind use: kapp's
// apiVersionKindMatcher needs the exact one, several need apiGroupKindMatcher.
func apiVersionsByKind(rep *classify.Report) map[string][]string {
	seen := map[string]map[string]bool{}
	for _, r := range rep.Resources {
		key := r.ID.Group + "/" + r.ID.Kind
		if seen[key] == nil {
			seen[key] = map[string]bool{}
		}
		seen[key][r.Desired.APIVersion] = true
	}
	out := map[string][]string{}
	for k, v := range seen {
		out[k] = sortedKeys(v)
	}
	return out
}

func evidenceSummary(f classify.Finding) string {
	switch f.Class {
	case classify.Controller:
		return "owned by " + f.Owner
	case classify.Admission:
		return "added during admission by " + f.Owner + " (see rebasegen explain)"
	case classify.Operational:
		return "stamped on purpose at run time by " + f.Owner + " (see rebasegen explain)"
	}
	return f.Evidence
}

func ruleKey(r Rule) string {
	m := r.Matchers[0]
	var kind, rest string
	if ns, ok := m.Names(); ok { // after the kind's own rules
		m = Matcher{KindNamespaceName: &ns[0]}
	} else if m.And != nil {
		m = m.And.Matchers[0]
	}
	switch {
	case m.APIVersionKind != nil:
		kind, rest = m.APIVersionKind.Kind, "0"+m.APIVersionKind.APIVersion
	case m.APIGroupKind != nil:
		kind, rest = m.APIGroupKind.Kind, "0"+m.APIGroupKind.APIGroup
	default:
		kind, rest = m.KindNamespaceName.Kind, "1"+m.KindNamespaceName.Namespace+"/"+m.KindNamespaceName.Name
	}
	first := ""
	if len(r.Owned) > 0 {
		first = strings.Join(r.Owned[0].Path, ".")
	} else if len(r.Paths) > 0 {
		first = strings.Join(r.Paths[0], ".")
	} else if len(r.Indexed) > 0 {
		first = indexKey(r.Indexed[0])[1:]
	} else {
		first = "~" + ytyKey(r)
	}
	return kind + "\x00" + rest + "\x00" + first
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// named narrows ids to the resources matchers name when they only name resources (a ytt rule for
// the resources a plain copy would be wrong on): the rule's comment names what it matches.
func named(ids map[pair.Identity]bool, matchers []Matcher) map[pair.Identity]bool {
	want := map[KindNamespaceName]bool{}
	for _, m := range matchers {
		ns, ok := m.Names()
		if !ok {
			return ids
		}
		for _, n := range ns {
			want[n] = true
		}
	}
	out := map[pair.Identity]bool{}
	for id := range ids {
		if want[KindNamespaceName{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}] {
			out[id] = true
		}
	}
	return out
}

// sortedIDs lists ids in their order (pair.Identity.Less: each group/kind together).
func sortedIDs(ids map[pair.Identity]bool) []pair.Identity {
	return slices.SortedFunc(maps.Keys(ids), func(a, b pair.Identity) int {
		if a.Less(b) {
			return -1
		}
		if b.Less(a) {
			return 1
		}
		return 0
	})
}

// byName sorts identities by their names (String), as a rule's comment lists them.
func byName(ids map[pair.Identity]bool) []pair.Identity {
	return slices.SortedFunc(maps.Keys(ids), func(a, b pair.Identity) int { return strings.Compare(a.String(), b.String()) })
}

func ytyKey(r Rule) string {
	switch {
	case len(r.Keyed) > 0:
		return r.Keyed[0].String()
	case len(r.Items) > 0:
		return r.Items[0].String()
	case len(r.Empty) > 0:
		return r.Empty[0].String()
	case len(r.Nulls) > 0:
		return r.Nulls[0].String()
	case len(r.Rewrites) > 0:
		return r.Rewrites[0].Path.String()
	case r.Drop != nil:
		return r.Drop.String()
	}
	return "stringData"
}
