package verdict

// The rules a hidden change is blamed on, and the owners that mask it.

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// blame names the rules responsible for a check's hidden changes, indexing once per resource
// what each answer reads: the resource's objects decoded, the rules matching it, where each
// rule's paths resolve in each object.
//
// Performance: asked afresh for each change, the answer decoded the resource's objects and
// walked each rule's paths through them again, every list item an allIndexes part selects: a
// check hiding N values of a resource did N times the resource's work.
type blame struct {
	rules   []Rule
	configs []load.Object
	of      map[string]*blamed // by resource, for the answers about its desired and live objects
	// inForce: kapp's rebase with the Configs in force, for its trace; made when first asked
	inForce *kappcover.Rebaser
	failed  bool
	// holding: the one resource whose trace is kept (a copy of its object per step of kapp's
	// rebase); asking about another drops it. Kept for every resource, the traces of a fleet's
	// resources were most of generate's peak heap (fleet corpus, 1,000 pairs: 156 MB, over the
	// 125 MB bar); the callers ask about one resource's values together.
	holding *blamed
}

func newBlame(in Input) *blame {
	if in.blameBy != nil {
		in = *in.blameBy
	}
	return &blame{rules: in.Rules, configs: in.Configs, of: map[string]*blamed{}}
}

// resource is what the answers about r read; with objs (the object kapp applies), indexed for
// them alone, for the caller to keep while it asks about r.
func (b *blame) resource(r classify.Resource, objs ...map[string]any) *blamed {
	id := r.ID.String()
	if x, ok := b.of[id]; ok && len(objs) == 0 {
		return x
	}
	x := &blamed{rules: b.rules, owner: b}
	if desired, live, err := r.Objects(); err == nil {
		x.desired, x.live = desired.Unstructured, live.Unstructured
		x.objs = append([]map[string]any{desired.Object, live.Object}, objs...)
		for _, obj := range x.objs {
			x.lookups = append(x.lookups, fielddiff.NewLookup(obj))
		}
	}
	if len(objs) == 0 {
		b.of[id] = x
	}
	return x
}

// responsible is blame's answer for one change (blamed.responsible).
func (b *blame) responsible(r classify.Resource, p fielddiff.Path, objs ...map[string]any) (string, RuleAt) {
	return b.resource(r, objs...).responsible(p, nil)
}

// blamed is a resource indexed for blame: its objects (desired, live, then the callers': none
// may change while it is asked about), and, per rule, whether it matches the resource and where
// its paths resolve in each object, made when first asked. desired is nil when the objects do
// not decode.
type blamed struct {
	rules   []Rule
	owner   *blame // nil: traced by its maker (putBack), for itself alone
	desired *unstructured.Unstructured
	live    *unstructured.Unstructured
	objs    []map[string]any
	lookups []*fielddiff.Lookup // per object: list items found by key through an index
	matches []int8              // per rule: 0 not asked yet, 1 matches, -1 does not
	reach   []reach             // per object, made when first asked (reachers)
	// reached: reachers' last answer, for the path reachedAt in the first reachedN objects
	reached   []bool
	reachedAt fielddiff.Path
	reachedN  int
	// steps: kapp's rebase of the manifest with the Configs in force, a step per rebase mod
	// (kappcover.Trace); from[i] is rule i's first, -1 for a rule not traced (no rebaseRules
	// rule, or no trace: kapp failed, or the rules are not the last of kapp's mods); made when
	// first asked (hasTrace), dropped when the owner asks about another resource (untrace)
	hasTrace    bool
	prepared    map[string]any
	steps       []kappcover.Step
	from        []int
	stepLookups map[int]*fielddiff.Lookup
}

// reach is where the rules' paths resolve in one object, by key (pathKey): at each path, and at
// each path above one of them, the rules (by index) resolving there.
type reach struct{ at, above map[string][]int }

// responsible names the rules in force that hide the change at p (by key): those kapp's rebase
// of the manifest shows rewriting the value, each as kapp matched it at its turn (a matcher may
// hold only once the rules before it rebased the resource: an emptyFieldMatcher on a field
// kapp's built-in rules copy from the live object). Where none did (a value the manifest holds
// as the live object does, changed by the mutation check), those that may hide it: the rules
// matching the resource whose paths reach p or lie under it, in the desired or the live object
// (or in the objects the resource was indexed with: the object kapp applies); additional labels
// of p's key; ytt rules matching it (an overlay can write anything); where none matches, those
// reaching it whatever their matchers are (a matcher may hold only on a live object one write
// later, which the mutation check varies). A copy from new first
// keeps every value the manifest declares, and is named only for a value it restores where no
// other rule may hide it. A diffAgainstLastAppliedFieldExclusionRules rule changes nothing kapp
// applies (it decides whether kapp diffs against its last-applied copy) and is never named, nor
// those skip names (hiders). It returns their description and where the first is written; zero
// when the objects do not decode, and when none does (kapp's rules together).
func (x *blamed) responsible(p fielddiff.Path, skip func(Rule) bool) (string, RuleAt) {
	if x.desired == nil {
		return "", RuleAt{}
	}
	may := func(i int) bool {
		rule := x.rules[i]
		return !rule.lastAppliedCheck && (skip == nil || !skip(rule)) && (!rule.keepsDeclared || rule.restores) && x.reaches(i, p)
	}
	var names []string
	var at RuleAt
	name := func(rule Rule) {
		if len(names) == 0 {
			at = rule.At
		}
		names = append(names, rule.At.String()+" ("+rule.Describe()+")")
	}
	for i, rule := range x.rules {
		if may(i) && x.rewrote(i, p) {
			name(rule)
		}
	}
	for _, matched := range []bool{true, false} {
		for _, keeps := range []bool{false, true} {
			if len(names) > 0 {
				return strings.Join(names, "; "), at
			}
			for i, rule := range x.rules {
				if rule.keepsDeclared == keeps && (matched && x.matched(i) || !matched) && may(i) {
					name(rule)
				}
			}
		}
	}
	if len(names) > 0 {
		return strings.Join(names, "; "), at
	}
	return "the rules in force together (kapp's built-in rules alone apply the change)", RuleAt{}
}

// hiders leaves out (skip) the rules that write want at p's key: a Config's additional labels
// of that value, an ownership or label scoping rule where p is kapp's own label. They make the
// change kapp applies (a label added in Git through a Config), they do not hide it.
func hiders(p fielddiff.Path, want any) (skip func(Rule) bool) {
	key := p[len(p)-1].FieldName
	if key == nil {
		return nil
	}
	return func(rule Rule) bool {
		v, ok := rule.wrote[*key]
		return ok && fielddiff.Equal(v, want) || rule.kappLabels && strings.HasPrefix(*key, kappconv.Prefix)
	}
}

// copied reports whether a copy rule matching the resource has a path reaching p in its desired
// or live object.
func (x *blamed) copied(p fielddiff.Path) bool {
	if x.desired == nil {
		return false
	}
	for i, rule := range x.rules {
		if rule.ytt == nil && rule.keys == nil && rule.index >= 0 && x.matched(i) && x.reachesIn(i, p, x.objs[:2]) {
			return true
		}
	}
	return false
}

func (x *blamed) matched(i int) bool {
	if x.matches == nil {
		x.matches = make([]int8, len(x.rules))
	}
	if x.matches[i] == 0 {
		x.matches[i] = -1
		if x.traced(i) {
			for k := x.from[i]; k < x.from[i]+x.rules[i].mods; k++ {
				if x.steps[k].Matched {
					x.matches[i] = 1
				}
			}
		} else if x.rules[i].Matches(x.desired) {
			x.matches[i] = 1
		}
	}
	return x.matches[i] > 0
}

// reaches reports whether rule i can act on the field at p (by key) of one of the objects.
func (x *blamed) reaches(i int, p fielddiff.Path) bool { return x.reachesIn(i, p, x.objs) }

func (x *blamed) reachesIn(i int, p fielddiff.Path, objs []map[string]any) bool {
	rule := x.rules[i]
	if rule.ytt != nil {
		return true
	}
	if rule.keys != nil {
		last := p[len(p)-1]
		return last.FieldName != nil && rule.keys[*last.FieldName]
	}
	return x.reachers(p, len(objs))[i]
}

// reachers is, per rule, whether its paths resolve at p (by key) or under or above it in one of
// the first n objects, found through the index of where every rule's paths resolve (reach): p's
// prefixes are looked up once, not once per rule. Asked rule by rule, each answer built p's keys
// again: a check hiding N values with N rules on one object did N×N of them (probe16 P16-5). The
// last answer is kept: responsible asks about one p for every rule in turn.
func (x *blamed) reachers(p fielddiff.Path, n int) []bool {
	if x.reached != nil && x.reachedN == n && slices.EqualFunc(x.reachedAt, p, fieldpath.PathElement.Equals) {
		return x.reached
	}
	if x.reach == nil {
		x.reach = make([]reach, len(x.objs))
		for j, obj := range x.objs {
			in := reach{at: map[string][]int{}, above: map[string][]int{}}
			for i, rule := range x.rules {
				if rule.ytt != nil || rule.keys != nil {
					continue
				}
				for _, kp := range rule.paths {
					for _, q := range resolved(obj, kp) {
						in.at[pathKey(q)] = append(in.at[pathKey(q)], i)
						for m := range len(q) + 1 {
							in.above[pathKey(q[:m])] = append(in.above[pathKey(q[:m])], i)
						}
					}
				}
			}
			x.reach[j] = in
		}
	}
	out := make([]bool, len(x.rules))
	for j := range n {
		in := x.reach[j]
		// p (by index) lies under a resolved path, or above one
		at := x.lookups[j].ByIndex(p)
		for _, i := range in.above[pathKey(at)] {
			out[i] = true
		}
		for m := range len(at) + 1 {
			for _, i := range in.at[pathKey(at[:m])] {
				out[i] = true
			}
		}
	}
	x.reached, x.reachedAt, x.reachedN = out, slices.Clone(p), n
	return out
}

// pathKey is p as a map key: its elements equal where the paths' are (fielddiff.Path.HasPrefix
// compares them), whatever a field name holds.
func pathKey(p fielddiff.Path) string {
	var b strings.Builder
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			b.WriteString("f" + strconv.Quote(*pe.FieldName))
		case pe.Index != nil:
			b.WriteString("i" + strconv.Itoa(*pe.Index))
		default: // a list item by key or value, found in no object: never one of a rule's resolved paths
			b.WriteString("k" + strconv.Quote(pe.String()))
		}
	}
	return b.String()
}

// controlled reports whether classification found a manager other than the applier owning the
// field at p (by index in obj), or a value holding it: a controller finding at it or above it,
// or a change made in Git to a value a controller rewrote (pending, its owner named), whose
// value from Git the check of changes made in Git judges (gitChangesRewritten), or a person's scale
// of a field an autoscaler owns (Autoscaler).
func controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	for _, f := range r.Findings {
		if f.Class != classify.Controller && (f.Class != classify.Pending || f.Owner == "") && f.Autoscaler == "" {
			continue
		}
		for _, q := range []fielddiff.Path{f.Path, f.Whole} {
			if q != nil && p.HasPrefix(byIndex(obj, q)) {
				return true
			}
		}
	}
	return false
}

// byIndex rewrites list items selected by key or value into their index in obj, as kapp's paths
// and declaredUnder address them.
func byIndex(obj map[string]any, p fielddiff.Path) fielddiff.Path {
	return fielddiff.NewLookup(obj).ByIndex(p)
}

// Controlled reports whether r's classification found a manager other than the applier owning
// the field at p (by key, as findings name fields), or a value holding it (controlled).
func Controlled(r classify.Resource, obj map[string]any, p fielddiff.Path) bool {
	return controlled(r, obj, byIndex(obj, p))
}
