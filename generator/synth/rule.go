// Package synth turns classified fields into the smallest set of kapp rebase rules that
// removes every ghost diff: per kind for defaults (the user's value wins), per resource for
// controller-owned fields (the controller wins), nothing for drift.
package synth

import (
	"encoding/json"
	"fmt"
	"slices"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// UserWins is the sources order of a rule where the user's value wins: the new (desired) object
// first, the existing (live) object where it lacks the field. A fresh slice on every call.
func UserWins() []ctlres.FieldCopyModSource {
	return []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceNew, ctlres.FieldCopyModSourceExisting}
}

// ControllerWins is the sources order of a rule where the cluster's value wins. A fresh slice on
// every call.
func ControllerWins() []ctlres.FieldCopyModSource {
	return []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceExisting, ctlres.FieldCopyModSourceNew}
}

// Matcher is one kapp resource matcher; exactly one field is set.
type Matcher struct {
	APIVersionKind    *APIVersionKind    `json:"apiVersionKindMatcher,omitempty"`
	APIGroupKind      *APIGroupKind      `json:"apiGroupKindMatcher,omitempty"`
	KindNamespaceName *KindNamespaceName `json:"kindNamespaceNameMatcher,omitempty"`
	// And and Not exclude resources from a kind: those whose list items do not line up by index.
	And *Matchers `json:"andMatcher,omitempty"`
	Any *Matchers `json:"anyMatcher,omitempty"`
	Not *Not      `json:"notMatcher,omitempty"`
	// EmptyField matches while the object being rebased lacks the path (or holds an empty value).
	EmptyField *EmptyField `json:"emptyFieldMatcher,omitempty"`
	// Versioned names a versioned resource as kapp matches it (VersionedNames): written as
	// versionedMatcher holds it, never as its name.
	Versioned     *VersionedName `json:"-"`
	HasAnnotation *HasAnnotation `json:"hasAnnotationMatcher,omitempty"`
	HasNamespace  *HasNamespace  `json:"hasNamespaceMatcher,omitempty"`
}

// KappMatchers reads matchers into kapp's own type as kapp reads a Config (its JSON keys, which
// the json tags above spell): for matching with kapp's own matcher code. An error is a bug here.
func KappMatchers(ms []Matcher) ([]ctlconf.ResourceMatcher, error) {
	var out []ctlconf.ResourceMatcher
	js, err := json.Marshal(ms)
	if err == nil {
		err = json.Unmarshal(js, &out)
	}
	return out, err
}

type EmptyField struct {
	Path []PathPart `json:"path"`
}

// PathPart is one part of a kapp path: a map key, a list index where Index is set, or every
// item of a list where AllIndexes is.
type PathPart struct {
	Key        string
	Index      *int
	AllIndexes bool
}

// Keys is a kapp path of map keys.
func Keys(keys ...string) []PathPart {
	out := make([]PathPart, len(keys))
	for i, k := range keys {
		out[i] = PathPart{Key: k}
	}
	return out
}

// String is the key, the index as [N], or [*] for every item.
func (p PathPart) String() string {
	if p.AllIndexes {
		return "[*]"
	}
	if p.Index != nil {
		return fmt.Sprintf("[%d]", *p.Index)
	}
	return p.Key
}

// MarshalJSON writes the part as kapp reads it: a string, {"index": N} or {"allIndexes": true}.
func (p PathPart) MarshalJSON() ([]byte, error) {
	if p.AllIndexes {
		return json.Marshal(map[string]bool{"allIndexes": true})
	}
	if p.Index != nil {
		return json.Marshal(map[string]int{"index": *p.Index})
	}
	return json.Marshal(p.Key)
}

// KappPath is p as a kapp path; p holds map keys and list indexes only.
func KappPath(p fielddiff.Path) []PathPart {
	out := make([]PathPart, len(p))
	for i, pe := range p {
		if pe.Index != nil {
			out[i] = PathPart{Index: pe.Index}
		} else {
			out[i] = PathPart{Key: *pe.FieldName}
		}
	}
	return out
}

type Matchers struct {
	Matchers []Matcher `json:"matchers"`
}

type Not struct {
	Matcher Matcher `json:"matcher"`
}

// Walk calls f for m and every matcher nested in it.
func (m Matcher) Walk(f func(Matcher)) {
	f(m)
	for _, l := range []*Matchers{m.And, m.Any} {
		if l != nil {
			for _, c := range l.Matchers {
				c.Walk(f)
			}
		}
	}
	if m.Not != nil {
		m.Not.Matcher.Walk(f)
	}
}

type APIVersionKind struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

type APIGroupKind struct {
	APIGroup string `json:"apiGroup"`
	Kind     string `json:"kind"`
}

type KindNamespaceName struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Rule is one kapp rebase rule. Plain rules copy map paths; ytt rules select list items by their
// merge key, add empty maps, rewrite values to their stored form or fold Secret stringData,
// which kapp's copy cannot express.
type Rule struct {
	// Classes (sorted) and Owners say why the rule exists, for its comment: the classes of the
	// fields it removes, and the managers owning those of class Controller.
	Classes []classify.Class
	Owners  []string
	// Resources are the pairs the evidence came from, in the order of their names (String), as the
	// comment lists them.
	Resources []pair.Identity
	Evidence  []string
	Sources   []ctlres.FieldCopyModSource
	Paths     [][]string // plain kapp paths
	// Owned are maps whose keys the controller owns in bulk, each rebased whole before Paths.
	Owned []OwnedMap
	// Indexed are paths through keyed list items that a plain copy writes by index, each key step
	// as {allIndexes: true}: the items line up by index in desired and live on every pair it matches.
	Indexed []fielddiff.Path
	Keyed   []fielddiff.Path // paths through keyed list items, selected by key (ytt)
	// Items are paths through items of lists without merge keys whose default the server chooses
	// by the item's own fields (byItem): copied (ytt) into an item only from the live item that
	// holds exactly what the manifest's item declares and, besides, only values these paths copy,
	// wherever each stands in the list; every list step matches items by content that way.
	Items []fielddiff.Path
	// Emptied are maps of which the copy keeps only the map itself: right after it, a remove rule
	// matching RemoveMatchers deletes every key, and a copy from new puts the manifest's keys
	// back. kapp's empty annotations map: the copy takes the live annotations, kapp's history
	// annotations and every other key the live object holds, an annotation removed in Git among
	// them.
	Emptied        [][]string
	RemoveMatchers []Matcher
	// Drop is the path of a declared empty value ([], {} or null) the server does not store, which
	// a remove rule deletes: its Matchers hold kapp's emptyFieldMatcher on the path (absent, null,
	// [] and {} are empty to it, never a scalar), so the declared value goes only while it is
	// empty and a non-empty value in Git is still shown. kapp's remove makes no copies: nearly
	// free, where a ytt rule costs kapp an evaluation per resource.
	Drop fielddiff.Path
	// ByKey says why Keyed paths are not Indexed.
	ByKey    string
	Empty    []fielddiff.Path // empty maps to add where the live object has them
	Nulls    []fielddiff.Path // nulls to add where the live object has them (ytt: kapp's copy takes null as absent there)
	Rewrites []Rewrite        // values the server stores in another form
	// FoldStringData moves Secret stringData into data where the live data holds the same values.
	FoldStringData bool
	Matchers       []Matcher
	// While says when the copy acts, for a default the server chooses by what else the object
	// holds (dependentGated): the fields its matchers find empty or not, and why.
	While string
	// Unmatched are resources of the rule's kinds whose manifests its matchers reject (a gate, an
	// emptyFieldMatcher on what the manifest holds, or the names of the kind's misfits): a rules
	// Secret, which names the resources each rule is for (OwnResources), leaves them out.
	Unmatched []pair.Identity
	// Also are the other ytt rules naming exactly the resources this one names, run in the same
	// ytt evaluation: kapp evaluates every ytt rule once per resource it matches, under each base,
	// on every deploy. Each keeps its own sources, paths, classes and evidence.
	Also []Rule
}

// Parts are the rule without Also, then the rules of Also: what one ytt evaluation runs, in order.
func (r Rule) Parts() []Rule {
	head := r
	head.Also = nil
	return append([]Rule{head}, r.Also...)
}

// Rewrite replaces From at Path with To when the live object holds To: the same value written
// the way the server stores it; a nil To drops a value the server does not store where the live
// object lacks the field; a nil From matches only a declared null. Exact values keep the rule from
// hiding a real change.
type Rewrite struct {
	Path     fielddiff.Path
	From, To any // To nil: the field dropped, or set to null where the live object holds null
}

// ControllerWins reports whether the rule lets the cluster's value win.
func (r Rule) ControllerWins() bool {
	return len(r.Sources) > 0 && r.Sources[0] == ctlres.FieldCopyModSourceExisting
}

// YTT reports whether the rule needs a ytt rebase rule.
func (r Rule) YTT() bool {
	return len(r.Keyed)+len(r.Items)+len(r.Empty)+len(r.Nulls)+len(r.Rewrites) > 0 || r.FoldStringData
}

// YTTPaths are the paths each ytt rule rewrites (those of every rule it holds), in rule order:
// the declared values the mutation check changes under it. The program emit writes for a rule
// (emit's overlay) writes nowhere else: its keyed paths, a rewrite's path (only while the object
// holds the rewrite's From), an empty map or a null only where the object lacks the field, and
// intermediate maps only where they are absent. A rule folding Secret stringData moves whichever
// keys each Secret's live data holds, so its entry is nil: every declared value is changed. Any
// other entry is non-nil, even empty: nil has the mutation check change every declared value of
// every resource the rule matches, each rebased by kapp and rendered within the ytt budget, to
// learn what the program's own data already says.
func YTTPaths(rules []Rule) [][]fielddiff.Path {
	var out [][]fielddiff.Path
	for _, r := range rules {
		if !r.YTT() {
			continue
		}
		if slices.ContainsFunc(r.Parts(), func(p Rule) bool { return p.FoldStringData }) {
			out = append(out, nil)
			continue
		}
		paths := []fielddiff.Path{}
		for _, part := range r.Parts() {
			paths = append(append(append(paths, part.Keyed...), part.Indexed...), part.Items...)
			for _, p := range part.Paths {
				paths = append(paths, fielddiff.FromFields(p))
			}
			for _, rw := range part.Rewrites {
				paths = append(paths, rw.Path)
			}
			paths = append(append(paths, part.Empty...), part.Nulls...)
		}
		out = append(out, paths)
	}
	return out
}

// Result is the synthesized rules and what the user should know about them.
type Result struct {
	Rules    []Rule
	Warnings []string
}

// Entries is how many entries rules take in a Config's rebaseRules, as a summary counts them:
// one each (a ytt rule holding others, Also, is one), and two more for the remove and the copy
// back that follow a copy keeping only a map (Emptied).
func Entries(rules []Rule) int {
	n := len(rules)
	for _, r := range rules {
		if len(r.Emptied) > 0 {
			n += 2
		}
	}
	return n
}
