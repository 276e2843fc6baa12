package lint

import (
	"fmt"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"

	"github.com/rebasegen/rebasegen/internal/words"
)

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
