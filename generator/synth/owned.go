package synth

// A controller owning many keys of one map: the map copied whole rather than key by key.

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
)

// OwnedMap is a map a controller-wins rule rebases as a whole: kapp copies it from the live object
// (sources [existing]), removes every key but Keys (Others), and copies every key the manifest
// holds back from it (sources [new]). The result is the copy of each of Keys from the live object
// that a path per key makes, the manifest's other keys kept: a key the manifest declares, declared
// later in Git or removed from it is shown as with no rule, a key someone else adds to the live
// object is removed.
//
// kapp's copy deep-copies the whole source for every key it copies (copyIntoMap in
// resources/mod_field_copy.go), and the live object holds every key of the map and a managedFields
// entry for each: a path per key costs kapp time quadratic in the keys. The three rules copy the
// live object's map once, and the manifest once per key it declares there.
type OwnedMap struct {
	Path   []string // the map
	Keys   []string // the keys the controller owns, sorted
	Others string   // a regular expression matching every key but Keys (allBut)
}

// ownedMapKeys is how many keys of one map a controller must own before its rule copies the map
// whole: below it, the three rules cost kapp about what the per-key copies do.
const ownedMapKeys = 32

// ownedMaps moves the keys of r's plain paths that share a parent map into an OwnedMap where that
// copies less: at least ownedMapKeys of them, more than the manifest declares in the map on every
// resource r names, none of them declared there (the controller would win over the manifest's
// value, which the copy back from the manifest does not do), and no other difference under the
// map (another rule's copy there, kapp's own included, would be undone by the copy of the whole
// map).
//
// A rule where the manifest wins ([new, existing]: the server's or an admission plugin's keys,
// kind-wide) is rebased the same way: the copy back from the manifest is what [new, existing]
// does for each key, so the manifest may declare some of the keys too.
func ownedMaps(r Rule, byID map[pair.Identity]classify.Resource) Rule {
	manifestWins := slices.Equal(r.Sources, []ctlres.FieldCopyModSource{ctlres.FieldCopyModSourceNew, ctlres.FieldCopyModSourceExisting})
	if r.YTT() || r.Drop != nil || !r.ControllerWins() && !manifestWins {
		return r
	}
	byParent := map[string][]string{}
	var parents []string
	for _, p := range r.Paths {
		k := strings.Join(p[:len(p)-1], "\x00")
		if _, ok := byParent[k]; !ok {
			parents = append(parents, k)
		}
		byParent[k] = append(byParent[k], p[len(p)-1])
	}
	moved := map[string]bool{}
	for _, k := range parents {
		keys := byParent[k]
		var parent []string
		if k != "" {
			parent = strings.Split(k, "\x00")
		}
		if len(keys) < ownedMapKeys || len(parent) == 0 || !ownedOnly(parent, keys, r.Resources, byID, manifestWins) {
			continue
		}
		sort.Strings(keys)
		others := allBut(keys)
		if _, err := regexp.Compile(others); err != nil { // too deep for Go's regexp (keys of hundreds of characters)
			continue
		}
		r.Owned = append(r.Owned, OwnedMap{Path: parent, Keys: keys, Others: others})
		moved[k] = true
	}
	if len(moved) > 0 {
		r.Paths = slices.DeleteFunc(slices.Clone(r.Paths), func(p []string) bool { return moved[strings.Join(p[:len(p)-1], "\x00")] })
	}
	return r
}

// ownedOnly reports whether on every resource the map at parent differs from the manifest only
// at keys, which the manifest does not declare, and declares fewer keys than keys. Where the
// manifest wins, on every resource the map differs only at keys, whatever the manifest declares.
func ownedOnly(parent, keys []string, ids []pair.Identity, byID map[pair.Identity]classify.Resource, manifestWins bool) bool {
	at := fielddiff.FromFields(parent)
	prefix := at.String()
	ruled := make(map[string]bool, len(keys))
	for _, k := range keys {
		ruled[k] = true
	}
	for _, id := range ids {
		res, ok := byID[id]
		if !ok {
			return false
		}
		owned := 0
		for _, f := range res.Findings {
			p := f.Path.String()
			if p == prefix || strings.HasPrefix(p, prefix+".") || strings.HasPrefix(p, prefix+"[") {
				last := f.Path[len(f.Path)-1].FieldName
				if len(f.Path) != len(at)+1 || f.Covered() || last == nil || !ruled[*last] || !manifestWins && f.Class != classify.Controller {
					return false
				}
				owned++
			}
		}
		if manifestWins {
			continue
		}
		if owned != len(keys) {
			return false
		}
		desired, err := res.Desired.Object()
		if err != nil {
			return false
		}
		v, ok := at.Get(desired.Object)
		if !ok || v == nil {
			continue
		}
		m, isMap := v.(map[string]any)
		if !isMap || len(m) >= len(keys) {
			return false
		}
		for _, k := range keys {
			if _, declared := m[k]; declared {
				return false
			}
		}
	}
	return len(ids) > 0
}

// allBut is a regular expression matching exactly the strings that are none of keys, for Go's
// regexp (which kapp's {regex} path part uses) that has no negative lookahead: the keys' prefix
// tree, at each node the end of the string where no key ends, a character no key continues with
// followed by anything, or a continuation. Its length and the work of matching a string grow with
// the keys' total length and the string's, not with their product as one alternation of every
// key but one would.
func allBut(keys []string) string {
	type node struct {
		next map[rune]*node
		end  bool
	}
	root := &node{}
	for _, k := range keys {
		n := root
		for _, c := range k {
			if n.next == nil {
				n.next = map[rune]*node{}
			}
			if n.next[c] == nil {
				n.next[c] = &node{}
			}
			n = n.next[c]
		}
		n.end = true
	}
	var b strings.Builder
	var write func(n *node)
	write = func(n *node) {
		cs := make([]rune, 0, len(n.next))
		for c := range n.next {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		var alts []func()
		if !n.end {
			alts = append(alts, func() {})
		}
		alts = append(alts, func() {
			if len(cs) == 0 {
				b.WriteString(".+")
				return
			}
			b.WriteString("[^")
			for _, c := range cs {
				b.WriteString(classRune(c))
			}
			b.WriteString("].*")
		})
		for _, c := range cs {
			alts = append(alts, func() {
				b.WriteString(regexp.QuoteMeta(string(c)))
				b.WriteString("(?:")
				write(n.next[c])
				b.WriteString(")")
			})
		}
		for i, alt := range alts {
			if i > 0 {
				b.WriteString("|")
			}
			alt()
		}
	}
	b.WriteString("(?s)^(?:")
	write(root)
	b.WriteString(")$")
	return b.String()
}

// classRune writes c for a character class: letters and digits as they are, anything else
// escaped by its code point.
func classRune(c rune) string {
	if c < 128 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return string(c)
	}
	return `\x{` + strconv.FormatInt(int64(c), 16) + `}`
}
