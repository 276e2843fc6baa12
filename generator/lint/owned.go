package lint

// Three rules that rebase a map whose keys a controller owns as one: the map copied whole from the
// live object, every key but the controller's removed, the manifest's keys copied back (what
// rebasegen generate writes for a controller owning many keys of one map, synth.OwnedMap). The
// first alone hides every change under the map; the three together hide none.

import (
	"reflect"
	"regexp/syntax"
	"slices"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
)

// ownedMapRules reports whether rules i, i+1 and i+2 of the Config are such a unit: a copy of one
// map path P from [existing], a remove of P + {regex}, and a copy of P + {regex matching every
// key} from [new], all with the same matchers.
func ownedMapRules(rules []at, i int) bool {
	if i+2 >= len(rules) {
		return false
	}
	var rs [3]ctlconf.RebaseRule
	for k := range rs {
		if decode(rules[i+k].v, &rs[k]) != nil || rs[k].Ytt != nil || len(rs[k].Path) > 0 || len(rs[k].Paths) != 1 {
			return false
		}
	}
	whole, remove, back := rs[0], rs[1], rs[2]
	p := whole.Paths[0]
	if whole.Type != "copy" || !slices.Equal(whole.Sources, []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceExisting}) || len(p) == 0 || p.ContainsNonMapKeys() ||
		remove.Type != "remove" || back.Type != "copy" || !slices.Equal(back.Sources, []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceNew}) ||
		!reflect.DeepEqual(whole.ResourceMatchers, remove.ResourceMatchers) || !reflect.DeepEqual(whole.ResourceMatchers, back.ResourceMatchers) {
		return false
	}
	under := func(q ctlres.Path) *string {
		if len(q) != len(p)+1 || !reflect.DeepEqual(q[:len(p)], p) || q[len(p)].Regex == nil {
			return nil
		}
		return q[len(p)].Regex.Regex
	}
	if under(remove.Paths[0]) == nil {
		return false
	}
	re := under(back.Paths[0])
	return re != nil && matchesEverything(*re)
}

// matchesEverything reports whether a regular expression is "any string": .* with . matching
// newlines, anchored or not.
func matchesEverything(re string) bool {
	parsed, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return false
	}
	parsed = parsed.Simplify()
	sub := parsed.Sub
	if parsed.Op != syntax.OpConcat {
		sub = []*syntax.Regexp{parsed}
	}
	star := false
	for _, s := range sub {
		switch {
		case s.Op == syntax.OpBeginText || s.Op == syntax.OpEndText:
		case s.Op == syntax.OpStar && s.Sub[0].Op == syntax.OpAnyChar && !star:
			star = true
		default:
			return false
		}
	}
	return star
}
