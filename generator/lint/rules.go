package lint

import (
	"encoding/json"
	"fmt"
	"reflect"

	sigsyaml "sigs.k8s.io/yaml"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"

	"github.com/rebasegen/rebasegen/internal/kappconv"
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
		Message: c.doc.note + msg, Suggestion: suggestion})
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
	if v, ok := root.field("minimumRequiredVersion").v.(string); ok {
		// kapp's own check, alone: its rules' checks are lint's findings of each rule
		cfg := ctlconf.Config{APIVersion: kappconv.ConfigAPIVersion, Kind: kappconv.ConfigKind, MinimumRequiredVersion: v}
		if err := cfg.Validate(); err != nil {
			c.add(Error, root.field("minimumRequiredVersion"), "minimumRequiredVersion: kapp rejects the Config: "+err.Error(), "minimumRequiredVersion: "+kappconv.Kapp+" (the kapp rebasegen embeds), or a lower one")
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
	c.inert(root)
}

// checkRule checks the rule at a; unit are the rules kapp applies together with it (a alone, or
// ownedMapRules; none for the other rules of a unit), judged broad only alone.
func (c *checker) checkRule(a at, unit []at) {
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
	if len(unit) == 1 {
		c.broad(a, r)
	}
	c.replicas(a, r)
	c.hidden(a, fmt.Sprintf("rebaseRules[%d]", c.rule), "", func() string { return c.narrower(a, r) })
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
