package classify

import (
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/rulesets"
)

// dependentOn is the entry of the rulesets' dependent defaults for f, a defaulted field of id's
// kind: its default depends on whether other fields of the object are empty (a NetworkPolicy's
// policyTypes on its egress rules), so that a copy of it must be gated on them. nil otherwise.
func (c *classifier) dependentOn(id pair.Identity, f Finding) *rulesets.Dependent {
	if f.Class != Defaulted {
		return nil
	}
	for i := range c.rules.Dependent {
		d := &c.rules.Dependent[i]
		if d.Group != id.Group || d.Kind != id.Kind {
			continue
		}
		if re, err := rulesets.PathPattern(d.Path); err == nil && re.MatchString(f.Path.String()) {
			return d
		}
	}
	return nil
}
