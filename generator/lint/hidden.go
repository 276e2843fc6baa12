package lint

import (
	"fmt"

	"github.com/rebasegen/rebasegen/internal/words"
)

// maxHidden keeps the list of hidden fields in a finding short.
const maxHidden = 5

// hidden reports a rule that hides a change made in Git to a declared field only the manifest's
// applier owns: the mutation check rebasegen generate and check run, on this rule alone. key is
// the Config key holding the rule (a rule of rebaseRules, or additionalLabels itself); prefix
// names it in the message when the finding's Rule index cannot (every key but rebaseRules).
func (c *checker) hidden(a at, key, prefix string, suggestion func() string) {
	if c.hides == nil || a.v == nil {
		return
	}
	fields, err := c.hides(key, a.v)
	if err != nil || len(fields) == 0 {
		return // a rule kapp cannot run is reported by the other checks
	}
	c.add(Error, a, fmt.Sprintf("%sthe rule hides a change made in Git to %s only the manifest's applier owns (kapp reports no update when they change): %s",
		prefix, words.Count(len(fields), "declared field"), words.List(fields, maxHidden)),
		suggestion())
}

// hidingKeys are the Config keys besides rebaseRules and additionalLabels whose rules make kapp
// ignore or rewrite a field (generator.HidingRule says how each does).
var hidingKeys = []string{"diffAgainstExistingFieldExclusionRules", "diffAgainstLastAppliedFieldExclusionRules",
	"ownershipLabelRules", "labelScopingRules", "templateRules"}

// hidingRules runs the mutation check on every rule of hidingKeys and on additionalLabels.
func (c *checker) hidingRules(root at) {
	none := func() string { return "" }
	for _, key := range hidingKeys {
		for i, r := range root.field(key).items() {
			c.hidden(r, key, fmt.Sprintf("%s[%d]: ", key, i), none)
		}
	}
	c.hidden(root.field("additionalLabels"), "additionalLabels", "additionalLabels: ", none)
}
