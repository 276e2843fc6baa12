package lint

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// checker lints one Config document.
type checker struct {
	*env
	doc      *doc
	rule     int // index of the rule being checked, -1 for the document
	findings []Finding
}

// add records a finding whose suggestion is the edit that fixes it: in a file rebasegen generated,
// regenerating it (N14-7: an edit by hand is undone by the next generate, and check calls it stale).
func (c *checker) add(sev Severity, a at, msg, suggestion string) {
	file, line := c.where(a)
	c.findings = append(c.findings, Finding{Severity: sev, File: file, Line: line, Rule: c.rule,
		Message: c.doc.note + msg, Suggestion: cmp.Or(c.doc.regenerate, suggestion)})
}

// advise records a finding as add does, or, when fact, one whose suggestion says what the inputs
// hold rather than an edit: kept in a generated file, before the advice to regenerate it.
func (c *checker) advise(fact bool, sev Severity, a at, msg, suggestion string) {
	c.add(sev, a, msg, suggestion)
	if fact && c.doc.regenerate != "" && suggestion != "" {
		c.findings[len(c.findings)-1].Suggestion = suggestion + "; " + c.doc.regenerate
	}
}

// line is the line of a's key, else of its value, else of the document.
func (c *checker) line(a at) int {
	_, line := c.where(a)
	return line
}

// where is the file and line of a's key, else of its value, else of the document: a node of a
// rendered document may be written in another file (doc.elsewhere), or nowhere known (line 0).
func (c *checker) where(a at) (string, int) {
	n := a.key
	if n == nil {
		n = a.n
	}
	if n == nil || c.doc.node == nil || n.Line == 0 {
		return c.doc.file, c.doc.line0
	}
	return cmp.Or(c.doc.elsewhere[n], c.doc.file), n.Line + c.doc.offset
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
	if v, ok := root.field("minimumRequiredVersion").v.(string); ok {
		// kapp's own check, alone: its rules' checks are lint's findings of each rule
		cfg := ctlconf.Config{APIVersion: kappconv.ConfigAPIVersion, Kind: kappconv.ConfigKind, MinimumRequiredVersion: v}
		err := cfg.Validate()
		switch {
		case err != nil:
			c.add(Error, root.field("minimumRequiredVersion"), "minimumRequiredVersion: kapp rejects the Config: "+err.Error(), "minimumRequiredVersion: "+kappconv.Kapp+" (the kapp rebasegen embeds), or a lower one")
		case c.kappController || c.doc.secret || c.doc.kappController:
			// probe13 P13-5: kapp-controller's kapp refuses the Config, and with it every deploy
			// of the package, where rebasegen's kapp accepts it
			if err := kappglobal.KappControllerRefuses(v); err != nil {
				where := ""
				if c.doc.number > 0 {
					where = fmt.Sprintf("document %d: ", c.doc.number)
				}
				c.add(Error, root.field("minimumRequiredVersion"), where+"minimumRequiredVersion: "+err.Error(),
					"minimumRequiredVersion: "+kappconv.KappOldest+" (what rebasegen generate writes), or another no newer than "+kappconv.KappControllerKapp)
			}
		}
	}
	rules := root.field("rebaseRules")
	if _, isList := rules.v.([]any); rules.v != nil && !isList {
		c.add(Error, rules, "rebaseRules is not a list: kapp rejects the Config", "")
		return
	}
	items := rules.items()
	unitEnd := 0 // rules before it belong to the last unit of several
	for i, r := range items {
		c.rule = i
		unit := []at{r}
		switch {
		case i < unitEnd:
			unit = nil // judged with the first rule of its unit
		case ownedMapRules(items, i): // judged together: each alone hides what the others restore
			unit, unitEnd = items[i:i+3], i+3
		}
		c.checkRule(r, unit)
	}
	c.rule = -1
	c.hidingRules(root)
	c.exclusionMatchers(root)
	c.inert(root)
	c.changeGraph(root)
	c.waitRules(root)
	c.preflightRules(root)
}

// checkRule checks the rule at a; unit are the rules kapp applies together with it (a alone, or
// ownedMapRules; none for the other rules of a unit), judged broad only alone.
func (c *checker) checkRule(a at, unit []at) {
	c.unknownKeys(a, reflect.TypeOf(ctlconf.RebaseRule{}), "rebase rule")
	var r ctlconf.RebaseRule
	if err := decode(a.v, &r); err != nil {
		msg, fix := unreadablePart(a.v)
		if msg == "" {
			msg = err.Error()
		}
		c.add(Error, a, "kapp cannot read the rule: "+msg, fix)
		return
	}
	valid := c.matchers(a, r)
	if r.Ytt != nil {
		c.yttRule(a, r)
	} else {
		c.copyRule(a, r)
	}
	c.duplicates(a, r)
	if len(unit) == 1 {
		c.broad(a, r)
	}
	c.replicas(a, r)
	c.hidden(a, fmt.Sprintf("rebaseRules[%d]", c.rule), "", func() string { return c.narrower(a, r) })
	if c.desired {
		c.unmatched(a, r, valid)
		c.versionedNames(a, r)
	}
}

// unreadablePart names the first part of a rule's path or paths kapp cannot read, kapp's own
// error ("Unknown path part") naming none, and the part to write for a bare list index; "" when
// every part reads.
func unreadablePart(rule any) (msg, fix string) {
	m, _ := rule.(map[string]any)
	paths, _ := m["paths"].([]any)
	if p, ok := m["path"]; ok {
		paths = append([]any{p}, paths...)
	}
	for _, p := range paths {
		parts, _ := p.([]any)
		for i, part := range parts {
			var pp ctlres.PathPart
			if decode(part, &pp) == nil {
				continue
			}
			msg = fmt.Sprintf("part %d (%v) of path %s is none kapp knows: a map key (a string), {index: N}, {allIndexes: true} or {regex: ...}", i, part, flowPath(parts))
			switch part.(type) {
			case float64, int64, int:
				fixed := slices.Clone(parts)
				fixed[i] = fmt.Sprintf("{index: %v}", part)
				fix = flowPath(fixed)
			}
			return msg, fix
		}
	}
	return "", ""
}

// flowPath writes a path as a rule's YAML flow list does.
func flowPath(parts []any) string {
	var out []string
	for _, part := range parts {
		js, err := json.Marshal(part)
		if err != nil {
			js = []byte(fmt.Sprint(part))
		}
		out = append(out, strings.ReplaceAll(string(js), `"`, ""))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// decode reads v into kapp's struct the way kapp does: sigs.k8s.io/yaml, lenient.
func decode(v, out any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sigsyaml.Unmarshal(js, out)
}
