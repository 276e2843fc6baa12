package lint

import (
	"fmt"
	"regexp"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
)

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
		case part.ArrayIndex != nil && part.ArrayIndex.Index != nil && *part.ArrayIndex.Index < 0:
			// kapp's FieldCopyMod and FieldRemoveMod check only the upper bound of an index
			c.add(Error, partAt(i), fmt.Sprintf("negative list index {index: %d}: kapp panics (index out of range) when it applies the rule to a resource holding the list", *part.ArrayIndex.Index),
				"{index: N} counts from 0; {allIndexes: true} for every item")
		case part.ArrayIndex != nil && part.ArrayIndex.Index == nil && part.ArrayIndex.All == nil:
			c.add(Error, partAt(i), "path part is none of KEY, {regex: ...}, {index: N}, {allIndexes: true}: kapp panics when it applies the rule", "")
		}
	}
	if last := p.p[len(p.p)-1]; last.ArrayIndex != nil && (last.ArrayIndex.Index != nil || last.ArrayIndex.All != nil) {
		c.add(Error, partAt(len(p.p)-1), fmt.Sprintf(`path %s ends in a list index: kapp copies and removes map keys only (it fails with "Expected last part of the path to be map key")`, FormatPath(p.p)),
			"end the path with a field of the items, [..., {allIndexes: true}, FIELD], or keep whole items with a ytt rule (rebasegen generate writes one)")
	}
}

// FormatPath renders a kapp path as a Config writes it: [spec, {index: 1}, port].
func FormatPath(p ctlres.Path) string {
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
