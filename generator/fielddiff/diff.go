// Package fielddiff computes the structural difference between a desired and a live object:
// maps by key, lists by their merge keys as Kubernetes' structured-merge-diff schema defines
// them (containers by name, ports by containerPort+protocol...), values compared semantically.
package fielddiff

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Change says on which side a differing field is present.
type Change string

const (
	Added    Change = "added"    // only live has it
	Removed  Change = "removed"  // only desired has it
	Modified Change = "modified" // both, with different values
	// Canonical: both, with values equal in meaning but written differently ("0.5" vs "500m"):
	// the server stores the canonical form and kapp, which compares text, shows the difference.
	Canonical Change = "canonical"
	// Same: both, equal: never a Delta. A finding about a field the objects agree on right now
	// that another manager writes (classify: an autoscaler's replicas).
	Same Change = "same"
)

// Delta is one differing field. A subtree present on one side only is one Delta at its root.
type Delta struct {
	Path    Path
	Change  Change
	Desired any    // value in the desired object, nil when absent
	Live    any    // value in the live object, nil when absent
	Noise   string // why this is not a finding (see Noise* constants), "" for a finding
	// Inserted: a Modified atomic list the manifest inserted items into before the live items'
	// end (inserted), the other items declared as the live ones; nil for any other delta.
	Inserted *Insertion
}

// Insertion is where the manifest's list holds items the live one lacks, and those items.
type Insertion struct {
	At    int   // the index of the first inserted item in the manifest's list
	Items []any // the inserted items, as the manifest declares them
}

// Diff compares desired with live as kapp sees them: raw objects, so that an empty map the
// server stores (resources: {}) is a difference. Values are compared semantically: a field whose
// values are equal once both objects are normalised (see Normalize: "0.5" vs "500m", 1 vs 1.0)
// is not a difference.
func Diff(desired, live *unstructured.Unstructured) ([]Delta, error) {
	c, err := Compare(desired, live)
	if err != nil {
		return nil, err
	}
	return c.Deltas, nil
}

// Compared is Diff's result, with what Declared needs of the desired object.
type Compared struct {
	Deltas  []Delta
	desired *unstructured.Unstructured
	// typedDesired is desired as Declared converts it, nil when the comparison converted
	// something else (a desired with kapp's keys or stringData, or compared schema-less while
	// the built-in schema knows it).
	typedDesired *typed.TypedValue
}

// Declared returns Declared(desired), reusing the comparison's conversion of desired when it
// is the same one (performance: converting and validating desired a second time was 0.2 s of
// explain's 12 s of CPU, fleet of 10,000 pairs).
func (c *Compared) Declared() (*fieldpath.Set, error) {
	if c.typedDesired == nil {
		return Declared(c.desired)
	}
	return declared(c.typedDesired)
}

// Compare is Diff, keeping what Compared.Declared reuses.
func Compare(desired, live *unstructured.Unstructured) (*Compared, error) {
	return compareObjects(desired, live, false)
}

// compareObjects is Compare; with whole, l's managedFields are compared as any other field
// (the comparison withoutManagedFields is held to).
func compareObjects(desired, live *unstructured.Unstructured, whole bool) (*Compared, error) {
	// kapp writes its own keys into labels, selectors and pod templates; some of those are atomic
	// in the schema (LabelSelector), so they are removed before comparing, and counted.
	// A map of desired that held only kapp's keys stays (empty) where live holds the map: kapp
	// writes its labels into a pod template the manifest has no metadata for, and the live
	// template's other labels (a Job's job-name) are then findings key by key, not a template
	// metadata the manifest lacks.
	l, stripped := stripKapp(live, nil)
	d, _ := stripKapp(FoldStringData(desired), l.Object)
	lc, mf := l, Path(nil)
	if !whole {
		lc, mf = withoutManagedFields(d, l)
	}
	cmp, td, err := compare(d, lc)
	if err != nil {
		return nil, fmt.Errorf("diffing %s %s: %w", live.GetKind(), live.GetName(), err)
	}
	res := &Compared{desired: desired}
	if d == desired {
		res.typedDesired = td
	}
	// Normalised copies are only needed for modified fields: made on first use (performance:
	// the round trip through the Go type was a tenth of explain's time, mostly wasted).
	var nd, nl *Lookup
	dl, ll := NewLookup(d.Object), NewLookup(l.Object)
	var out []Delta
	add := func(s *fieldpath.Set, c Change) {
		for _, p := range topMost(s) {
			dv, _ := dl.GetDeclared(p)
			lv, _ := ll.Get(p)
			if c != Modified {
				out = append(out, Delta{Path: p, Change: c, Desired: dv, Live: lv, Noise: noise(p)})
				continue
			}
			if !stayDifferent(dv, lv) {
				if nd == nil {
					nd, nl = NewLookup(Normalize(d).Object), NewLookup(Normalize(l).Object)
				}
				ndv, ok := nd.GetDeclared(p)
				nlv, _ := nl.Get(p)
				if ok && Equal(ndv, nlv) {
					out = append(out, Delta{Path: p, Change: Canonical, Desired: dv, Live: lv, Noise: noise(p)})
					continue
				}
			}
			out = append(out, expand(p, dv, lv)...)
		}
	}
	add(cmp.Added, Added)
	add(cmp.Removed, Removed)
	add(cmp.Modified, Modified)
	if mf != nil {
		dv, _ := dl.GetDeclared(mf)
		lv, _ := ll.Get(mf)
		out = append(out, Delta{Path: mf, Change: Added, Desired: dv, Live: lv, Noise: noise(mf)})
	}
	for _, p := range stripped {
		out = append(out, Delta{Path: p, Change: Added, Noise: NoiseKapp})
	}
	// Sort by the rendered path, rendered once per delta rather than twice per comparison
	// (performance: the comparator's Path.String calls were an eighth of explain's time).
	keys := make([]string, len(out))
	for i := range out {
		keys[i] = out[i].Path.String()
	}
	sort.Sort(byKey{out, keys})
	res.Deltas = out
	return res, nil
}

// stayDifferent reports whether two differing values are certain to differ once normalised as
// well: two booleans, or two integers in int32's range (the built-in types hold integers in int32,
// int64, Quantity and IntOrString fields, all of which keep such values exactly; a field the type
// lacks is dropped, never made equal). Performance: a scaled Deployment's replicas made Diff
// normalise both objects, a twentieth of explain's CPU at fleet scale, to find them different.
func stayDifferent(a, b any) bool {
	switch a := a.(type) {
	case bool:
		b, ok := b.(bool)
		return ok && a != b
	case int64:
		b, ok := b.(int64)
		return ok && a != b && a == int64(int32(a)) && b == int64(int32(b))
	}
	return false
}

// expand splits a modified atomic value (a list the schema does not key, a custom resource's
// list) into the leaves that differ, so defaults inside list items get their own paths: maps by
// key, lists of equal length by index, and a non-empty list of maps the manifest makes longer by
// index too, the items only it holds removed: kapp's rules select an atomic list's items by index,
// and a StatefulSet's volumeClaimTemplates Git adds one to still need the copies of the defaults
// in the others (newcomer7 N7-2). A shorter one stays whole: its items, shifted or not, are one
// change the server makes (compare's TestAgainstTheServer, list-remove cases); so does a list of
// scalars, or an empty one (an aggregated ClusterRole's rules: [] the controller fills), and a
// longer one Git inserted items into before the live items' end (inserted).
func expand(p Path, dv, lv any) []Delta {
	switch d := dv.(type) {
	case map[string]any:
		l, ok := lv.(map[string]any)
		if !ok {
			break
		}
		var out []Delta
		for _, k := range unionKeys(d, l) {
			k := k
			q := append(p[:len(p):len(p)], fieldpath.PathElement{FieldName: &k})
			x, inD := d[k]
			y, inL := l[k]
			switch {
			case !inL:
				out = append(out, Delta{Path: q, Change: Removed, Desired: x, Noise: noise(q)})
			case !inD:
				out = append(out, Delta{Path: q, Change: Added, Live: y, Noise: noise(q)})
			case !Equal(x, y):
				out = append(out, expand(q, x, y)...)
			}
		}
		return out
	case []any:
		l, ok := lv.([]any)
		if !ok || len(l) != len(d) && (len(l) == 0 || len(d) < len(l) || !allMaps(d) || !allMaps(l)) {
			break
		}
		if k, ok := inserted(d, l); ok {
			return []Delta{{Path: p, Change: Modified, Desired: dv, Live: lv, Noise: noise(p), Inserted: &Insertion{At: k, Items: d[k : k+len(d)-len(l)]}}}
		}
		var out []Delta
		for i := range d {
			i := i
			q := append(p[:len(p):len(p)], fieldpath.PathElement{Index: &i})
			switch {
			case i >= len(l):
				out = append(out, Delta{Path: q, Change: Removed, Desired: d[i], Noise: noise(q)})
			case !Equal(d[i], l[i]):
				out = append(out, expand(q, d[i], l[i])...)
			}
		}
		return out
	}
	return []Delta{{Path: p, Change: Modified, Desired: dv, Live: lv, Noise: noise(p)}}
}

// inserted reports where, if at all, the manifest's longer list d is the live list l with items inserted
// before some of l's (each other item declared as the live one at its place, which the server
// may have defaulted more of), not after them all: compared by index, every item from the
// insertion on faced the live item before it, and each was reported changed field by field, the
// inserted ones as the items l lacks at the end (newcomer14 N14-3). Such a list is one change.
func inserted(d, l []any) (int, bool) {
	n := len(d) - len(l)
	if n <= 0 {
		return 0, false
	}
	lined := func(k int) bool { // d is l with n items inserted at k
		for j := range l {
			at := j
			if j >= k {
				at = j + n
			}
			if !Holds(l[j], d[at]) {
				return false
			}
		}
		return true
	}
	if lined(len(l)) {
		return 0, false // appended: the items by index are the same items
	}
	for k := range l {
		if lined(k) {
			return k, true
		}
	}
	return 0, false
}

// Holds reports whether applied holds every value declared declares: the same map keys with
// values that hold theirs, lists of the same length item by item, equal scalars (a live value
// the server defaulted more of holds the manifest's).
func Holds(applied, declared any) bool {
	switch d := declared.(type) {
	case map[string]any:
		a, ok := applied.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range d {
			if av, ok := a[k]; !ok || !Holds(av, v) {
				return false
			}
		}
		return true
	case []any:
		a, ok := applied.([]any)
		if !ok || len(a) != len(d) {
			return false
		}
		for i := range d {
			if !Holds(a[i], d[i]) {
				return false
			}
		}
		return true
	}
	return Equal(applied, declared)
}

func allMaps(l []any) bool {
	for _, v := range l {
		if _, ok := v.(map[string]any); !ok {
			return false
		}
	}
	return true
}

func unionKeys(a, b map[string]any) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// compare returns the comparison of d with l, and d's conversion when it is the one Declared
// makes (nil otherwise).
func compare(d, l *unstructured.Unstructured) (*typed.Comparison, *typed.TypedValue, error) {
	td, tl, dDeclared, err := toTyped(d, l)
	if err != nil {
		return nil, nil, err
	}
	td, tl = ordered(td), ordered(tl)
	cmp, err := td.Compare(tl)
	if err != nil || !dDeclared {
		return cmp, nil, err
	}
	return cmp, td, nil
}

// topMost reduces a set to the roots of its subtrees, so an added map or list item is one
// delta. A noisy path is never merged into its parent: an annotations map that only holds
// kapp's annotations stays noise, and a real annotation next to them stays a finding.
func topMost(s *fieldpath.Set) []Path {
	// Each path is rendered once: a prefix's rendering is the start of the path's (see render).
	// Performance: every prefix of every path was rendered anew, most of them several times.
	var all []Path
	var keys []string
	var ends, at []int // the rendering of all[i][:n] is keys[i][:ends[at[i]+n-1]]
	s.Iterate(func(p fieldpath.Path) {
		q := Path(p.Copy())
		at = append(at, len(ends))
		keys = append(keys, q.render(&ends))
		all = append(all, q)
	})
	prefix := func(i, n int) string { return keys[i][:ends[at[i]+n-1]] }
	hasNoisyChild, hasChild := map[string]bool{}, map[string]bool{}
	for i, p := range all {
		if len(p) > 1 {
			hasChild[prefix(i, len(p)-1)] = true
		}
		if noise(p) != "" {
			for n := 1; n < len(p); n++ {
				hasNoisyChild[prefix(i, n)] = true
			}
		}
	}
	var out []Path
	for i, p := range all {
		if hasNoisyChild[keys[i]] || (perKeyMap(p) && hasChild[keys[i]]) {
			continue
		}
		root := true
		for n := 1; n < len(p) && root; n++ {
			q := p[:n]
			if s.Has(fieldpath.Path(q)) && !hasNoisyChild[prefix(i, n)] && !perKeyMap(q) {
				root = false
			}
		}
		if root {
			out = append(out, p)
		}
	}
	return out
}

// perKeyMap reports maps whose keys are separate findings even when the whole map is new:
// labels and annotations are owned, defaulted and ruled key by key.
func perKeyMap(p Path) bool {
	last := p[len(p)-1].FieldName
	return last != nil && (*last == "labels" || *last == "annotations")
}

// byKey sorts deltas by their precomputed path strings.
type byKey struct {
	ds   []Delta
	keys []string
}

func (b byKey) Len() int           { return len(b.ds) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.ds[i], b.ds[j] = b.ds[j], b.ds[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}
