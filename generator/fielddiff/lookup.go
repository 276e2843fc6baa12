package fielddiff

import (
	"strconv"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Lookup answers Get and GetDeclared for many paths into one object that does not change
// meanwhile, finding list items by merge key or set value through an index built on a list's
// first lookup rather than by scanning the list each time.
//
// Performance: Path.Get scans a list per lookup, so one lookup per differing item of a list is
// quadratic: explain of a Deployment whose 10,000 containers all differ took 41 s, 27 s of it
// in that scan; 20,000 containers over two minutes.
type Lookup struct {
	obj   map[string]any
	index map[listID]map[string][]int // bucket (see bucket) -> item indexes, in list order; nil until a list is indexed
}

// listID names one list of the object (by its first item's address) looked up by one key.
type listID struct {
	first *any
	n     int
	names string // the key's field names, or "=" for a set's values
}

// NewLookup returns a Lookup for obj.
func NewLookup(obj map[string]any) *Lookup {
	return &Lookup{obj: obj} // (most lookups index no list: a classification makes several per pair)
}

// Get is Path.Get.
func (x *Lookup) Get(p Path) (any, bool) { return x.get(p, false) }

// GetDeclared is Path.GetDeclared.
func (x *Lookup) GetDeclared(p Path) (any, bool) {
	if v, ok := x.get(p, false); ok {
		return v, true
	}
	return x.get(p, true)
}

func (x *Lookup) get(p Path, lenient bool) (any, bool) {
	var cur any = x.obj
	for _, pe := range p {
		var ok bool
		if cur, _, ok = x.step(cur, pe, lenient); !ok {
			return nil, false
		}
	}
	return cur, true
}

// ByIndex is p with each list item it selects by key or value named by its index, as Get finds
// it (the paths kapp's rules resolve to address items so). A list item Get does not find leaves
// p as it is; past a field missing in the object, the elements are kept as they are.
func (x *Lookup) ByIndex(p Path) Path {
	out := make(Path, 0, len(p))
	var cur any = x.obj
	for _, pe := range p {
		next, i, ok := x.step(cur, pe, false)
		if _, isList := cur.([]any); isList && pe.Index == nil {
			if !ok {
				return p
			}
			pe = fieldpath.PathElement{Index: &i}
		}
		out = append(out, pe)
		cur = next
	}
	return out
}

// step is the package's step, through the index for a long list: i is the index of the list
// item pe selects by key or value, -1 for any other step.
func (x *Lookup) step(cur any, pe fieldpath.PathElement, lenient bool) (v any, i int, ok bool) {
	l, isList := cur.([]any)
	if !isList || pe.Key == nil && pe.Value == nil {
		v, ok = step(cur, pe, lenient)
		return v, -1, ok
	}
	if len(l) <= scannedList || pe.Key != nil && len(*pe.Key) > maxIndexedKey {
		i = -1
		for j := range l {
			if _, found := step(l[j:j+1], pe, lenient); found {
				i = j
				break
			}
		}
	} else {
		i = x.find(l, pe.Key, pe.Value, lenient)
	}
	if i < 0 {
		return nil, -1, false
	}
	return l[i], i, true
}

// scannedList bounds the lists looked up by scanning them, as Path.Get does, rather than through
// an index: find returns the first item Path.Get finds, and for a list this short, building its
// index costs more than the scans it saves (most lists of an object hold an item or two).
const scannedList = 8

// maxIndexedKey bounds the key fields a lenient lookup tries leaving out (2^n buckets); longer
// keys, which no built-in kind has, are scanned.
const maxIndexedKey = 6

// find returns the index of the first item of l matching key (or, for a set, equal to v), as
// findByKey and findValue find it, -1 for none: candidates come from the index and are
// confirmed by those functions.
func (x *Lookup) find(l []any, key *value.FieldList, v *value.Value, lenient bool) int {
	id := listID{first: &l[0], n: len(l), names: "="}
	if key != nil {
		id.names = keyNames(*key)
	}
	idx, ok := x.index[id]
	if !ok {
		idx = indexList(l, key)
		if x.index == nil {
			x.index = map[listID]map[string][]int{}
		}
		x.index[id] = idx
	}
	if key == nil {
		for _, i := range idx[bucket([]value.Value{*v}, 1)] {
			if _, ok := findValue(l[i:i+1], *v); ok {
				return i
			}
		}
		return -1
	}
	vals := make([]value.Value, len(*key))
	for i, f := range *key {
		vals[i] = f.Value
	}
	full := 1<<len(vals) - 1
	best := -1
	for mask := full; mask >= 0; mask-- {
		if !lenient && mask != full {
			break
		}
		for _, i := range idx[bucket(vals, mask)] {
			if best >= 0 && i >= best {
				break
			}
			if _, ok := findByKey(l[i:i+1], *key, lenient); ok {
				best = i
				break
			}
		}
	}
	return best
}

// indexList buckets l's items by the key fields they hold and those fields' values (a set's
// items by their value).
func indexList(l []any, key *value.FieldList) map[string][]int {
	idx := map[string][]int{}
	for i, item := range l {
		if key == nil {
			b := bucket([]value.Value{value.NewValueInterface(item)}, 1)
			idx[b] = append(idx[b], i)
			continue
		}
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		vals := make([]value.Value, len(*key))
		mask := 0
		for j, f := range *key {
			if v, ok := m[f.Name]; ok {
				vals[j] = value.NewValueInterface(v)
				mask |= 1 << j
			}
		}
		b := bucket(vals, mask)
		idx[b] = append(idx[b], i)
	}
	return idx
}

// bucket renders the values selected by mask so that values value.Equals calls equal share a
// bucket (numbers by their float value, as Equals compares them); values it cannot render
// (lists, maps) share one, and find confirms every candidate.
func bucket(vals []value.Value, mask int) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(mask))
	for j, v := range vals {
		if mask&(1<<j) == 0 {
			continue
		}
		var s string
		switch {
		case v.IsFloat() || v.IsInt():
			f := float64(0)
			if v.IsFloat() {
				f = v.AsFloat()
			} else {
				f = float64(v.AsInt())
			}
			if f == 0 {
				f = 0 // -0 equals 0
			}
			s = "n" + strconv.FormatFloat(f, 'g', -1, 64)
		case v.IsString():
			s = "s" + v.AsString()
		case v.IsBool():
			s = "b" + strconv.FormatBool(v.AsBool())
		case v.IsNull():
			s = "z"
		default:
			s = "?"
		}
		b.WriteString("|" + strconv.Itoa(len(s)) + ":" + s)
	}
	return b.String()
}

func keyNames(key value.FieldList) string {
	var b strings.Builder
	for _, f := range key {
		b.WriteString(strconv.Itoa(len(f.Name)) + ":" + f.Name)
	}
	return b.String()
}
