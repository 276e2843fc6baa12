package synth

// A controller's copy from the live object alone where that is exactly the controller-wins copy.

import (
	"slices"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// existingOnly gives the plain controller rules sources [existing] where that copies exactly
// what [existing, new] does. kapp's copy runs once per source, deep-copying the whole resource
// and the whole source each time, and with [existing, new] the pass over the manifest copies, for
// each field the manifest holds, the live value again (copyIntoMap tries existing first):
// resources/mod_field_copy.go. On the 1,000-pair fleet the HPA replicas rule's second pass was 5%
// of the rules' allocations in kapp's rebase.
//
// [existing] differs from [existing, new] only at a field the live object lacks and the manifest
// holds, and only if an earlier rule changed the object being rebased there: [existing, new] puts
// the manifest's value back, [existing] keeps what the earlier rule wrote. kapp's built-in copies
// write the live value or the manifest's, which is the same there, except that its first rule
// copies metadata from the live object (labels and annotations are then reset to the manifest's):
// so every path must be outside metadata or under its labels or annotations, and no ytt or
// remove rule, generated (for any resource of the kind) or kapp's own (the ServiceAccount
// secrets overlay), may match the resources.
func existingOnly(rules []Rule, rep *classify.Report) []Rule {
	changed := map[string]bool{} // kinds a generated ytt or remove rule matches
	for _, r := range rules {
		if r.YTT() || r.Drop != nil {
			for _, m := range r.Matchers {
				m.Walk(func(m Matcher) {
					switch {
					case m.APIVersionKind != nil:
						changed[m.APIVersionKind.Kind] = true
					case m.APIGroupKind != nil:
						changed[m.APIGroupKind.Kind] = true
					case m.KindNamespaceName != nil:
						changed[m.KindNamespaceName.Kind] = true
					}
				})
			}
		}
	}
	builtin, ok := builtinYTT()
	if !ok {
		return rules
	}
	byID := map[pair.Identity]classify.Resource{}
	for _, r := range rep.Resources {
		byID[r.ID] = r
	}
	for i, r := range rules {
		if r.YTT() || r.Drop != nil || !slices.Equal(r.Sources, ControllerWins()) || len(r.Indexed) > 0 || len(r.Paths) == 0 ||
			slices.ContainsFunc(r.Paths, func(p []string) bool { return !outsideMetadata(p) }) {
			continue
		}
		ok := true
		for _, id := range r.Resources {
			res, known := byID[id]
			if !known || changed[id.Kind] {
				ok = false
				break
			}
			obj, err := res.Desired.Object()
			if err != nil || slices.ContainsFunc(builtin, func(m kappmatch.Matcher) bool { return m.MatchesObject(obj.Unstructured) }) {
				ok = false
				break
			}
		}
		if ok && len(r.Resources) > 0 {
			rules[i].Sources = []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceExisting}
		}
	}
	return rules
}

// outsideMetadata reports a path outside metadata, or under its labels or annotations, which
// kapp's built-in rules reset to the manifest's.
func outsideMetadata(p []string) bool {
	return len(p) == 0 || p[0] != "metadata" || len(p) > 1 && (p[1] == "labels" || p[1] == "annotations")
}

// builtinYTT are the matchers of kapp's built-in ytt rebase rules (config/default.go), read with
// kapp's own parser.
func builtinYTT() ([]kappmatch.Matcher, bool) {
	rules, err := kappmatch.BuiltinRebaseRules()
	if err != nil {
		return nil, false
	}
	var out []kappmatch.Matcher
	for _, r := range rules {
		if r.Ytt != nil {
			m, ok := kappmatch.New(r.ResourceMatchers)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
	}
	return out, true
}
