package verdict

// The mutation check's second draw, on the resources a hand-written ytt rule may act on. A ytt
// rule reads values (kapp's matchers read identities, annotation keys and emptiness only, which
// no scalar's change alters): it could let through exactly what mutate keeps, a string's text
// before its last run of letters and digits, its length, an integer's number of digits, and
// hide every change of it made in Git (an image's registry swapped). Every value is also
// changed at once, so that a rule hiding a change only when a metadata value and a spec value
// change together (a release bumping a version label with the image) is hit too; and changed to
// values of other types (typeDraws), which a rule reading a value's type tells apart.

import (
	"crypto/rand"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// unlike returns another value of v's type, drawn at random for every call, that keeps none of
// what mutate keeps: a string gets a random prefix ending in "/" (a registry before an image)
// and every run of letters and digits redrawn in its classes at a random length; an integer gets
// another number of digits and a random sign. Like mutate's, its values never reach any output.
func unlike(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		return redrawnRuns(t), true
	case int64:
		return otherDigits(t), true
	}
	return mutate(v)
}

// redrawnRuns is s behind a random prefix, each run of ASCII letters and digits redrawn at a
// random length, each character in the class of the run's character at its place (cycled), the
// other characters kept; drawn again while it is as long as s (shorter runs can make up for the
// prefix).
func redrawnRuns(s string) string {
	if s == "" {
		return rand.Text()
	}
	rs := []rune(s)
	for {
		var out strings.Builder
		out.WriteString(strings.ToLower(rand.Text()[:1+randomBelow(8)]) + "/")
		for i := 0; i < len(rs); {
			if !alnum(rs[i]) {
				out.WriteRune(rs[i])
				i++
				continue
			}
			j := i
			for j < len(rs) && alnum(rs[j]) {
				j++
			}
			run := rs[i:j]
			for k := range 1 + randomBelow(int64(len(run))+3) {
				out.WriteRune(sameClass(run[int(k)%len(run)]))
			}
			i = j
		}
		if drawn := out.String(); len([]rune(drawn)) != len(rs) {
			return drawn
		}
	}
}

// sameClass is a random character of r's class: a digit, a lower- or an upper-case letter.
func sameClass(r rune) rune {
	switch {
	case r >= '0' && r <= '9':
		return '0' + rune(randomBelow(10))
	case r >= 'a' && r <= 'z':
		return 'a' + rune(randomBelow(26))
	}
	return 'A' + rune(randomBelow(26))
}

// otherDigits is an integer of another number of digits than n (1 to 9: kapp and ytt carry
// numbers as float64, and most of Kubernetes' integers are 32-bit), of a random sign.
func otherDigits(n int64) int64 {
	digits := 1
	for a := n / 10; a != 0; a /= 10 {
		digits++
	}
	d := digits
	for d == digits {
		d = 1 + int(randomBelow(9))
	}
	lo := int64(1)
	for range d - 1 {
		lo *= 10
	}
	m := lo + randomBelow(9*lo) // d digits
	if d == 1 {
		m = randomBelow(10)
	}
	if randomBelow(2) == 0 {
		return -m
	}
	return m
}

// unlikeAwayFrom is unlike(v), drawn again while it is the live value (as MutateAwayFrom).
func unlikeAwayFrom(v, live any, inLive bool) any {
	var drawn any
	for range 16 {
		if drawn, _ = unlike(v); !inLive || !fielddiff.Equal(drawn, live) {
			break
		}
	}
	return drawn
}

// allUnlike are the probes of unlike's draws for paths (t.paths, found from seq on, in order):
// one changing every value at once, for kapp's rebase to say which of them the rules rewrite,
// and one for each value whose change moves its item (a merge key, a set's item), changed alone;
// then those of values of other types (otherTypes).
// kapp's own kapp.k14s.io/ annotations and labels, which kapp reads and may fail on, keep
// mutate's draw alone.
func allUnlike(r classify.Resource, paths []fielddiff.Path, desired, live *unstructured.Unstructured, seq int, single bool, lives [][]change) []mutation {
	w := mutation{r: r, single: single, probed: true, wide: true, lives: lives, what: "every declared value"}
	var out []mutation
	for i, p := range paths {
		if kappsOwn(p) {
			continue
		}
		val, _ := p.Get(desired.Object)
		key := fielddiff.ByKey(desired, p)
		var liveVal any
		inLive := false
		if live != nil {
			liveVal, inLive = key.GetDeclared(live.Object)
		}
		m := mutation{r: r, path: p, value: unlikeAwayFrom(val, liveVal, inLive), what: key.String(), key: key,
			single: single, probed: true, controller: controlled(r, desired.Object, p), seq: seq + i}
		if !movesItem(desired, p) {
			w.members = append(w.members, m)
			continue
		}
		p.Set(desired.Object, m.value)
		m.key = fielddiff.ByKey(desired, p) // the item moved
		p.Set(desired.Object, val)
		m.lives = lives
		out = append(out, m)
	}
	if w.members != nil {
		out = append(out, w)
	}
	return append(out, otherTypes(r, paths, desired, seq, single, lives)...)
}

// otherTypes are the probes of typeDraws for paths (as allUnlike's): for each kind of draw, a
// batch changing every value outside metadata (whose labels and annotations the API holds as
// strings) at once, but those whose change moves their item, for kapp's rebase to say which of
// them the rules rewrite; where kapp fails on a batch, each of its values is asked about alone
// (probed), so that a rule failing on one value's type cannot keep another's from the check.
func otherTypes(r classify.Resource, paths []fielddiff.Path, desired *unstructured.Unstructured, seq int, single bool, lives [][]change) []mutation {
	var out []mutation
	for i, p := range paths {
		if slices.ContainsFunc(p, isMetadata) || movesItem(desired, p) {
			continue
		}
		val, _ := p.Get(desired.Object)
		key := fielddiff.ByKey(desired, p)
		for k, drawn := range typeDraws(val) {
			if k == len(out) {
				out = append(out, mutation{r: r, single: single, probed: true, lives: lives})
			}
			out[k].members = append(out[k].members, mutation{r: r, path: p, value: drawn, what: key.String(), key: key,
				single: single, probed: true, controller: controlled(r, desired.Object, p), seq: seq + i})
		}
	}
	return out
}

// isMetadata reports whether pe is a field named metadata (a pod template's, too).
func isMetadata(pe fieldpath.PathElement) bool {
	return pe.FieldName != nil && *pe.FieldName == "metadata"
}

// typeDraws are values of other types than v's, drawn at random for every call: a scalar of
// another kind (a string for a number or a bool, an integer for a string), a map and a list. A
// ytt rule reading a value's type could hide every change made in Git that changes it (probe12
// P12-5: a port "80" becoming 80, a quantity "100m" becoming 1, a value becoming a map), which
// mutate's and unlike's draws, each within v's type, never make.
func typeDraws(v any) []any {
	var scalar any = strings.ToLower(rand.Text()[:1+randomBelow(8)])
	if _, ok := v.(string); ok {
		scalar = 1 + randomBelow(1<<20)
	}
	return []any{scalar, map[string]any{strings.ToLower(rand.Text()[:1+randomBelow(8)]): rand.Text()}, []any{rand.Text()}}
}

// kappsOwn reports whether p is an annotation or a label of kapp's own (kapp.k14s.io/).
func kappsOwn(p fielddiff.Path) bool {
	return len(p) == 3 && p[0].FieldName != nil && *p[0].FieldName == "metadata" && p[2].FieldName != nil &&
		strings.HasPrefix(*p[2].FieldName, "kapp.k14s.io/")
}
