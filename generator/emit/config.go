package emit

// The rules generate writes, as kapp's own typed Config: what the verdict stage judges. The YAML
// writer renders the same list (rebaseRules), so the file and the typed value are one
// description; a test checks kapp's parser reads the file back as the typed value.

import (
	"fmt"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Config is the rules as the kapp Config WriteRules writes in the config format.
func Config(rules []synth.Rule) (ctlconf.Config, error) {
	written, err := rebaseRules(rules)
	if err != nil {
		return ctlconf.Config{}, err
	}
	cfg := ctlconf.Config{APIVersion: kappconv.ConfigAPIVersion, Kind: kappconv.ConfigKind,
		MinimumRequiredVersion: MinimumKappVersion, RebaseRules: []ctlconf.RebaseRule{}}
	for _, w := range written {
		if w.rule != nil {
			cfg.RebaseRules = append(cfg.RebaseRules, *w.rule)
		}
	}
	return cfg, nil
}

// ruleText is one rebase rule of the Config and the comment lines written before it (without
// the comment marker); rule is nil for comments left after the last rule.
type ruleText struct {
	about []string
	rule  *ctlconf.RebaseRule
}

// rebaseRules is every rebase rule the synthesized rules are written as, in order, with why.
func rebaseRules(rules []synth.Rule) ([]ruleText, error) {
	var out []ruleText
	var about []string
	say := func(format string, args ...any) { about = append(about, fmt.Sprintf(format, args...)) }
	add := func(r ctlconf.RebaseRule) {
		out = append(out, ruleText{about: about, rule: &r})
		about = nil
	}
	sayAbout := func(r synth.Rule) {
		say("%s: %s", escape.Text(classLabels(r)), escape.Text(resourceNames(r.Resources)))
		for _, e := range r.Evidence {
			say("  %s", escape.Text(e))
		}
	}
	for _, r := range rules {
		ms, err := synth.KappMatchers(r.Matchers)
		if err != nil {
			return nil, fmt.Errorf("generated matchers (a bug): %w", err)
		}
		switch {
		case r.YTT():
			for _, p := range r.Parts() { // each rule of the one ytt evaluation says what it rewrites and why
				sayAbout(p)
				say("  ytt rule: %s", escape.Text(pathList(p)))
				say("  not a plain copy: %s", escape.Text(yttWhy(p)))
			}
			if len(r.Also) > 0 {
				say("  the %d ytt rules above run as one: kapp evaluates a ytt rule once for every resource it matches, under each base", len(r.Also)+1)
			}
			add(ctlconf.RebaseRule{Ytt: &ctlconf.RebaseRuleYtt{OverlayContractV1: &ctlconf.RebaseRuleYttOverlayContractV1{OverlayYAML: overlay(r)}},
				ResourceMatchers: ms})
		case r.Drop != nil:
			sayAbout(r)
			say("  remove rule: %s, an empty value the server does not store, only while the manifest's value is empty (emptyFieldMatcher): a value declared in Git is still shown", escape.Text(r.Drop.String()))
			add(ctlconf.RebaseRule{Type: "remove", Paths: []ctlres.Path{kappPath(synth.KappPath(r.Drop))}, ResourceMatchers: ms})
		default:
			sayAbout(r)
			for _, m := range r.Owned {
				ownedRules(m, r.ControllerWins(), ms, say, add)
			}
			if len(r.Paths)+len(r.Indexed) == 0 {
				continue // every path was in an owned map
			}
			if e := gate(r.Matchers); e != nil && leafMaps(*e, r.Indexed) {
				say("  only where the manifest has %s: kapp's copy would make it where the manifest lacks it%s", escape.Text(emptyFieldString(*e)), oneOf(*e))
			} else if e != nil {
				say("  only where the manifest has %s: elsewhere the copy reaches nothing, and kapp copies the whole object for each path of a rule it matches", escape.Text(emptyFieldString(*e)))
			}
			if r.While != "" {
				say("  only while %s", escape.Text(r.While))
			}
			add(ctlconf.RebaseRule{Type: "copy", Sources: r.Sources, Paths: siblingsAsRegex(r), ResourceMatchers: ms})
		}
		if len(r.Emptied) > 0 && len(r.RemoveMatchers) > 0 { // none: it selects only versioned resources (synth.VersionedNames)
			removeMs, err := synth.KappMatchers(r.RemoveMatchers)
			if err != nil {
				return nil, fmt.Errorf("generated matchers (a bug): %w", err)
			}
			say("  only the empty map is kept: every key the copy above takes from the live object removed (kapp's history annotations, which kapp removes before diffing, and any other: an annotation removed in Git would stay), the manifest's keys copied back")
			var removed, back []ctlres.Path
			for _, p := range r.Emptied {
				removed, back = append(removed, keysOf(p, everyKey)), append(back, keysOf(p, everyKey))
			}
			add(ctlconf.RebaseRule{Type: "remove", Paths: removed, ResourceMatchers: removeMs})
			add(ctlconf.RebaseRule{Type: "copy", Sources: []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceNew}, Paths: back, ResourceMatchers: removeMs})
		}
	}
	if len(about) > 0 {
		out = append(out, ruleText{about: about})
	}
	return out, nil
}

// ownedRules are the three rules that rebase an owned map (synth.OwnedMap): copied whole from
// the live object, every key but the controller's removed, the manifest's keys copied back.
func ownedRules(m synth.OwnedMap, owner bool, ms []ctlconf.ResourceMatcher, say func(string, ...any), add func(ctlconf.RebaseRule)) {
	whose := "owned by the controller"
	if !owner {
		whose = "from the live object, the manifest's value winning"
	}
	say("  %d keys of %s %s (%s ... %s): the map copied whole from the live object, every other key removed, the manifest's keys copied back (kapp copies the whole object for each key a path copies)",
		len(m.Keys), escape.Text(strings.Join(m.Path, ".")), whose, escape.Text(m.Keys[0]), escape.Text(m.Keys[len(m.Keys)-1]))
	add(ctlconf.RebaseRule{Type: "copy", Sources: []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceExisting},
		Paths: []ctlres.Path{ctlres.NewPathFromStrings(m.Path)}, ResourceMatchers: ms})
	add(ctlconf.RebaseRule{Type: "remove", Paths: []ctlres.Path{keysOf(m.Path, m.Others)}, ResourceMatchers: ms})
	add(ctlconf.RebaseRule{Type: "copy", Sources: []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceNew},
		Paths: []ctlres.Path{keysOf(m.Path, everyKey)}, ResourceMatchers: ms})
}

// keysOf is the path of the keys of the map at p that regex matches.
func keysOf(p []string, regex string) ctlres.Path {
	return append(ctlres.NewPathFromStrings(p), &ctlres.PathPart{Regex: &ctlres.PathPartRegex{Regex: &regex}})
}

// everyKey is the {regex} of every key of a map.
const everyKey = "(?s)^.*$"

// kappPath is a synth path as kapp's path: an index only where kapp reads the list's length
// first (emptyFieldMatcher, remove): its copy does not.
func kappPath(p []synth.PathPart) ctlres.Path {
	out := make(ctlres.Path, len(p))
	for i, part := range p {
		switch {
		case part.AllIndexes:
			out[i] = ctlres.NewPathPartFromIndexAll()
		case part.Index != nil:
			out[i] = ctlres.NewPathPartFromIndex(*part.Index)
		default:
			out[i] = ctlres.NewPathPartFromString(part.Key)
		}
	}
	return out
}
