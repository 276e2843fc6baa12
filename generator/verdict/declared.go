package verdict

// The declared values the mutation check changes, and what they are changed to.

import (
	"crypto/rand"
	"encoding/binary"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// resolved lists where kapp's path kp leads in obj, list items by index.
func resolved(obj map[string]any, kp ctlres.Path) []fielddiff.Path {
	var out []fielddiff.Path
	walkPath(obj, kp, nil, func(_ any, at fielddiff.Path) { out = append(out, at) })
	return out
}

// identity fields name the object: changing them makes kapp see another object, not an update.
var identity = []fielddiff.Path{fielddiff.FromFields([]string{"apiVersion"}), fielddiff.FromFields([]string{"kind"}),
	fielddiff.FromFields([]string{"metadata", "name"}), fielddiff.FromFields([]string{"metadata", "namespace"})}

// declaredUnder lists the scalar values obj declares at or below kapp's path kp, list items by
// index (as kapp's path addresses them).
func declaredUnder(obj map[string]any, kp ctlres.Path) []fielddiff.Path {
	var out []fielddiff.Path
	var leaves func(v any, at fielddiff.Path)
	leaves = func(v any, at fielddiff.Path) {
		switch t := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				leaves(t[k], with(at, fieldpath.PathElement{FieldName: &k}))
			}
		case []any:
			for i := range t {
				leaves(t[i], with(at, fieldpath.PathElement{Index: &i}))
			}
		default:
			if _, ok := mutate(v); ok && !slices.ContainsFunc(identity, func(q fielddiff.Path) bool { return q.String() == at.String() }) {
				out = append(out, at)
			}
		}
	}
	walkPath(obj, kp, nil, leaves)
	return out
}

func with(p fielddiff.Path, pe fieldpath.PathElement) fielddiff.Path {
	return append(append(fielddiff.Path{}, p...), pe)
}

// mutate returns a different value of the same type and shape, for scalars, drawn at random for
// every call (crypto/rand): a rule keyed to a fixed marker or a fixed step (a suffix, +1) would
// let exactly the mutation check's values through and hide every change made in Git, and one
// keyed to what real values look like (an image's repository with any tag, digits) would let
// through values that look like none. A string keeps all but its last run of letters and digits,
// which is redrawn character by character in the same class (an image keeps its repository and
// gets another tag: nginx:1.25 -> nginx:1.83); an integer keeps its sign and number of digits.
// The values never reach any output (findings name paths), so output stays deterministic.
func mutate(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		return plausible(t), true
	case int64:
		return sameDigits(t), true
	case float64:
		return t + float64(randomStep()), true
	case bool:
		return !t, true
	}
	return nil, false
}

// plausible is s with its last run of ASCII letters and digits redrawn, each character in its
// class (a digit, a lower- or upper-case letter, a hexadecimal letter where the run is
// hexadecimal), the rest kept; random text for a string with no such run.
func plausible(s string) string {
	rs := []rune(s)
	end := len(rs)
	for end > 0 && !alnum(rs[end-1]) {
		end--
	}
	start := end
	for start > 0 && alnum(rs[start-1]) {
		start--
	}
	if start == end {
		for {
			if t := rand.Text(); t != s {
				return t
			}
		}
	}
	hex := true
	for _, r := range rs[start:end] {
		hex = hex && (r >= '0' && r <= '9' || r >= 'a' && r <= 'f')
	}
	out := slices.Clone(rs)
	for {
		for i := start; i < end; i++ {
			switch r := rs[i]; {
			case r >= '0' && r <= '9':
				out[i] = '0' + rune(randomBelow(10))
			case hex:
				out[i] = 'a' + rune(randomBelow(6))
			case r >= 'a' && r <= 'z':
				out[i] = 'a' + rune(randomBelow(26))
			default:
				out[i] = 'A' + rune(randomBelow(26))
			}
		}
		if string(out) != s {
			return string(out)
		}
	}
}

func alnum(r rune) bool { return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// sameDigits is another integer of n's sign and number of digits (0 to 9 for one digit).
func sameDigits(n int64) int64 {
	if n == math.MinInt64 {
		return n + randomStep()
	}
	sign, abs := int64(1), n
	if n < 0 {
		sign, abs = -1, -n
	}
	lo, hi := int64(0), int64(10) // [lo, hi): the numbers of abs's digits
	for hi <= abs && hi <= math.MaxInt64/10 {
		lo, hi = hi, hi*10
	}
	if hi <= abs { // 19 digits
		lo, hi = hi, math.MaxInt64
	}
	if sign < 0 && lo == 0 { // -0 is 0
		lo = 1
	}
	for {
		if m := lo + randomBelow(hi-lo); m != abs {
			return sign * m
		}
	}
}

// randomBelow is a random number from 0 to n-1.
func randomBelow(n int64) int64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand.Read never fails (Go 1.24+)
	}
	return int64(binary.LittleEndian.Uint64(b[:]) % uint64(n))
}

// randomStep is a random number from 1 to 2^20.
func randomStep() int64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand.Read never fails (Go 1.24+)
	}
	return int64(binary.LittleEndian.Uint64(b[:])%(1<<20)) + 1
}

// walkPath calls visit with each value kapp's path kp leads to from v (at, by index).
func walkPath(v any, parts ctlres.Path, at fielddiff.Path, visit func(v any, at fielddiff.Path)) {
	if len(parts) == 0 {
		visit(v, at)
		return
	}
	part, rest := parts[0], parts[1:]
	m, _ := v.(map[string]any)
	l, _ := v.([]any)
	switch {
	case part.MapKey != nil:
		if c, ok := m[*part.MapKey]; ok {
			walkPath(c, rest, with(at, fieldpath.PathElement{FieldName: part.MapKey}), visit)
		}
	case part.Regex != nil && part.Regex.Regex != nil:
		re, err := regexp.Compile(*part.Regex.Regex)
		if err != nil {
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			if re.MatchString(k) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkPath(m[k], rest, with(at, fieldpath.PathElement{FieldName: &k}), visit)
		}
	case part.ArrayIndex != nil && part.ArrayIndex.All != nil:
		for i := range l {
			walkPath(l[i], rest, with(at, fieldpath.PathElement{Index: &i}), visit)
		}
	case part.ArrayIndex != nil && part.ArrayIndex.Index != nil:
		if i := *part.ArrayIndex.Index; i >= 0 && i < len(l) {
			walkPath(l[i], rest, with(at, fieldpath.PathElement{Index: &i}), visit)
		}
	}
}

// removable lists the maps and lists declared in obj (list items included, by index) that a
// removal made in Git can take away: those at kapp's path kp (nil: the whole object), and with
// under, every one below them; never the identity fields or the maps holding them.
func removable(obj map[string]any, kp ctlres.Path, under bool) []fielddiff.Path {
	var out []fielddiff.Path
	var nodes func(v any, at fielddiff.Path)
	nodes = func(v any, at fielddiff.Path) {
		_, isMap := v.(map[string]any)
		_, isList := v.([]any)
		if (isMap || isList) && len(at) > 0 && !slices.ContainsFunc(identity, func(q fielddiff.Path) bool { return q.HasPrefix(at) }) {
			out = append(out, at)
		}
		if !under && len(at) > 0 {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				nodes(t[k], with(at, fieldpath.PathElement{FieldName: &k}))
			}
		case []any:
			for i := range t {
				nodes(t[i], with(at, fieldpath.PathElement{Index: &i}))
			}
		}
	}
	walkPath(obj, kp, nil, nodes)
	return out
}

// holdsSome reports whether kept, what the object kapp applies holds where the manifest no
// longer declares removed, holds some of removed: one of its scalars at the same place with the
// same value. An empty map (kapp's own empty annotations map) or the server's defaults that a
// rule copies under it keep nothing the manifest declared.
func holdsSome(kept, removed any) bool {
	switch r := removed.(type) {
	case map[string]any:
		k, _ := kept.(map[string]any)
		for key, v := range r {
			if kv, ok := k[key]; ok && holdsSome(kv, v) {
				return true
			}
		}
		return false
	case []any:
		k, _ := kept.([]any)
		for i := range min(len(k), len(r)) {
			if holdsSome(k[i], r[i]) {
				return true
			}
		}
		return false
	}
	return fielddiff.Equal(kept, removed)
}
