package lint

import "fmt"

// exclusionKeys are the Config keys whose rules kapp v0.66.0 applies to every resource: it calls
// their mods' Apply, which never asks the rule's resourceMatchers (diff/resource_with_history.go,
// diff/resource_with_removed_fields.go, resources/mod_field_remove.go).
var exclusionKeys = []string{"diffAgainstExistingFieldExclusionRules", "diffAgainstLastAppliedFieldExclusionRules"}

// exclusionMatchers warns of an exclusion rule's resourceMatchers naming less than every
// resource: its author meant to exclude the path from those alone, kapp excludes it from all (and
// check's mutation check judges the rule on every resource).
func (c *checker) exclusionMatchers(root at) {
	for _, key := range exclusionKeys {
		for i, r := range root.field(key).items() {
			ms := r.field("resourceMatchers")
			list, _ := ms.v.([]any)
			if len(list) == 0 || len(list) == 1 && r.field("resourceMatchers").items()[0].field("allMatcher").v != nil {
				continue
			}
			path := flowPath(func() []any { p, _ := r.field("path").v.([]any); return p }())
			c.add(Warning, ms, fmt.Sprintf("%s[%d]: kapp never reads an exclusion rule's resourceMatchers: it excludes %s from every resource it diffs",
				key, i, path), "to exclude the path from these resources alone, write a rebase rule (remove, or copy from [existing]) with these resourceMatchers; else write allMatcher: {}")
		}
	}
}
