package lint

import (
	"fmt"
	"strings"

	"github.com/rebasegen/rebasegen/internal/words"
)

// maxHidden keeps the list of hidden fields in a finding short.
const maxHidden = 5

// Hidden is what the verdict stage found a rule hiding (its mutation check, and the changes made
// in Git it judges one by one): the declared fields only the manifest's applier owns whose
// change kapp's engine no longer shows, by where the rule is written.
type Hidden struct {
	File string
	Line int    // the rule's line (a rules Secret's: its key's); 0 when ytt rendered the rule
	Doc  int    // the document of ytt's output, when rendered
	Key  string // the Config key and the rule's index there: rebaseRules[2], additionalLabels
	// Fields are "Kind namespace/name path".
	Fields []string
	// Unjudged are the values a hand-written ytt rule decides on that the mutation check does
	// not vary, "Kind namespace/name: source path" (verdict.RuleUnjudged): it is not judged.
	Unjudged []string
}

// hidden reports a rule that hides a change made in Git to a declared field only the manifest's
// applier owns, as the verdict stage judged it (Options.Hidden). key is the Config key holding
// the rule with its index (rebaseRules[2], additionalLabels); prefix names it in the message
// when the finding's Rule index cannot (every key but rebaseRules).
func (c *checker) hidden(a at, key, prefix string, suggestion func() string) {
	var fields, unjudged []string
	for _, h := range c.hiddenBy {
		if h.File == c.doc.given && c.judged(h, a, key) {
			fields = append(fields, h.Fields...)
			unjudged = append(unjudged, h.Unjudged...)
		}
	}
	if len(unjudged) > 0 {
		c.add(Error, a, fmt.Sprintf("%sthe rule's program decides on values the mutation check does not vary, so whether it hides a change made in Git is not judged: it reads %s",
			prefix, words.List(unjudged, maxHidden)), "make the rule read only the values it writes, and copy them as they are (or let rebasegen generate the rules)")
	}
	if len(fields) == 0 {
		return
	}
	list := words.List(fields, maxHidden)
	if words.Shown(len(fields), maxHidden) < len(fields) {
		// the rest are no less hidden (newcomer6 N6-7)
		list += ": rebasegen check with these inputs lists every one"
	}
	c.add(Error, a, fmt.Sprintf("%sthe rule hides a change made in Git to %s only the manifest's applier owns (kapp reports no update when they change): %s",
		prefix, words.Count(len(fields), "declared field"), list),
		suggestion())
}

// judged reports whether h is about the rule at a, under key: at its line, or where lines are
// not the rule's own (a document ytt rendered, a rules Secret's key), by the document and key.
func (c *checker) judged(h Hidden, a at, key string) bool {
	k := h.Key
	if i := strings.LastIndex(k, " "); i >= 0 { // inside a ConfigMap's or Secret's file
		k = k[i+1:]
	}
	sameKey := k == key || strings.HasPrefix(k, key+".")
	switch {
	case c.doc.node != nil && h.Line != 0 && h.Line == c.line(a):
		return true
	case !sameKey:
		return false
	case h.Line == 0:
		return (c.doc.node == nil || c.doc.ytt > 0) && h.Doc == c.doc.ytt
	}
	return (c.doc.secret || c.doc.node == nil) && h.Line == c.doc.line0
}

// hidingKeys are the Config keys besides rebaseRules and additionalLabels whose rules make kapp
// ignore or rewrite a field (verdict.Rules says how each does).
var hidingKeys = []string{"diffAgainstExistingFieldExclusionRules", "diffAgainstLastAppliedFieldExclusionRules",
	"ownershipLabelRules", "labelScopingRules", "templateRules"}

// hidingRules reports every rule of hidingKeys, and additionalLabels, the verdict found hiding.
func (c *checker) hidingRules(root at) {
	none := func() string { return "" }
	for _, key := range hidingKeys {
		for i, r := range root.field(key).items() {
			c.hidden(r, fmt.Sprintf("%s[%d]", key, i), fmt.Sprintf("%s[%d]: ", key, i), none)
		}
	}
	c.hidden(root.field("additionalLabels"), "additionalLabels", "additionalLabels: ", none)
}
