package verify

// kapp's line diff of a large resource, without a table of one int per pair of lines.
// kapp decides an update by diffing the YAML of the two resources line by line
// (diff.ConfigurableTextDiff, github.com/carvel-dev/difflib.Diff): a longest-common-subsequence
// table of one int per pair of lines, built again for every Op and every diff text (kapp's memo of
// the full diff has a value receiver and keeps nothing). A ConfigMap holding thousands of keys a
// controller wrote, whose YAML kapp renders in another order on each side (go-yaml's key order
// is not a total order for keys such as hex digests), made that table grow with the square of the
// keys, several times per check (issue 23). The same diff is computed here from the same lines
// with a bit-parallel table of which about the square root of its rows is kept (a bit per line of
// the other side each), walked back exactly as difflib walks its table, so the records, the op
// and the text are kapp's.

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"github.com/carvel-dev/difflib"
)

// bigDiffCells is the size of kapp's table (lines of one side times lines of the other) above
// which a diff is computed here: below it kapp's own table is small.
const bigDiffCells = 1 << 20

// bigUpdate reports whether ch is an update whose diff is computed here (large), and the
// resources' YAML lines, unmasked, as kapp's full diff reads them.
func bigUpdate(ch ctldiff.Change) (bool, []string, []string, error) {
	if _, ok := ch.(*ctldiff.ChangeImpl); !ok {
		return false, nil, nil, nil // kapp's op and diff were decided when it made the change
	}
	existing, updated := ch.ExistingResource(), ch.NewResource()
	if existing == nil || updated == nil || yamlLines(existing.UnstructuredObject())*yamlLines(updated.UnstructuredObject()) <= bigDiffCells {
		return false, nil, nil, nil
	}
	left, err := resourceLines(existing)
	if err != nil {
		return false, nil, nil, err
	}
	right, err := resourceLines(updated)
	return err == nil, left, right, err
}

// changeOp is kapp's ch.Op() (diff.ChangeImpl.op), its line diff of a large update computed here:
// changes when the lines differ, an update unless the manifest says the resource only has to
// exist (kapp.k14s.io/exists), nothing with kapp.k14s.io/noop.
func changeOp(ch ctldiff.Change) (ctldiff.ChangeOp, error) {
	big, left, right, err := bigUpdate(ch)
	if err != nil || !big {
		return ch.Op(), err
	}
	annotations := ch.NewResource().Annotations()
	if _, ok := annotations[ctlres.NoopAnnKey]; ok {
		return ctldiff.ChangeOpNoop, nil
	}
	if !hasChanges(lineDiff(left, right)) {
		return ctldiff.ChangeOpKeep, nil
	}
	if _, ok := annotations[ctlres.ExistsAnnKey]; ok {
		return ctldiff.ChangeOpKeep, nil
	}
	return ctldiff.ChangeOpUpdate, nil
}

// bigTextDiff is kapp's diff text of a large update (diff.TextDiffView.String with opts: the
// resources masked with rules, then diffed), ok false when kapp's own view is small enough.
// Called with maskMu held.
func bigTextDiff(ch ctldiff.Change, rules []ctlconf.DiffMaskRule, opts ctldiff.TextDiffViewOpts) (string, bool, error) {
	if big, _, _, err := bigUpdate(ch); err != nil || !big {
		return "", false, err
	}
	var sides [2][]string
	for i, res := range []ctlres.Resource{ch.ExistingResource(), ch.NewResource()} {
		masked, err := ctldiff.NewMaskedResource(res, rules).Resource()
		if err != nil {
			return "", false, fmt.Errorf("masking %s: %w", res.Description(), err)
		}
		if sides[i], err = resourceLines(masked); err != nil {
			return "", false, err
		}
	}
	return textView(lineDiff(sides[0], sides[1]), opts), true, nil
}

// resourceLines are res's YAML lines as kapp diffs them (ConfigurableTextDiff.calculate).
func resourceLines(res ctlres.Resource) ([]string, error) {
	bs, err := res.AsYAMLBytes()
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", res.Description(), err)
	}
	return strings.Split(string(bs), "\n"), nil
}

// yamlLines bounds from below the lines of v's YAML: one per map entry, list item and line of a
// string.
func yamlLines(v any) int {
	switch t := v.(type) {
	case map[string]any:
		n := 1
		for _, e := range t {
			n += yamlLines(e)
		}
		return n
	case []any:
		n := 1
		for _, e := range t {
			n += yamlLines(e)
		}
		return n
	case string:
		return 1 + strings.Count(t, "\n")
	}
	return 1
}

func hasChanges(recs []difflib.DiffRecord) bool {
	for _, r := range recs {
		if r.Delta != difflib.Common {
			return true
		}
	}
	return false
}

// textView renders recs as kapp's diff.TextDiffView.String does with color off.
func textView(recs []difflib.DiffRecord, opts ctldiff.TextDiffViewOpts) string {
	changed := map[int]struct{}{}
	for i, r := range recs {
		if r.Delta != difflib.Common {
			changed[i] = struct{}{}
		}
	}
	inContext := func(i int) bool {
		if opts.Context < 0 {
			return true
		}
		for k := i - opts.Context; k < i+opts.Context; k++ {
			if _, ok := changed[k]; ok {
				return true
			}
		}
		return false
	}
	num := func(l, sep, r string) string {
		if opts.LineNumbers {
			return l + sep + r + " "
		}
		return ""
	}
	const blank = "   "
	n := func(line int) string { return fmt.Sprintf("%3d", line) }
	var lines []string
	prevInContext := false
	for i, r := range recs {
		switch r.Delta {
		case difflib.RightOnly:
			lines = append(lines, fmt.Sprintf("%s+ %s", num(blank, " ", n(r.LineRight)), r.Payload))
		case difflib.LeftOnly:
			lines = append(lines, fmt.Sprintf("%s- %s", num(n(r.LineLeft), " ", blank), r.Payload))
		case difflib.Common:
			newInContext := inContext(i)
			if i != 0 && !prevInContext && newInContext {
				lines = append(lines, "  ...")
			}
			if newInContext {
				lines = append(lines, fmt.Sprintf("%s  %s", num(n(r.LineLeft), ",", n(r.LineRight)), r.Payload))
			}
			prevInContext = newInContext
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// lineDiff is difflib.Diff(left, right): the lines both share at the start and at the end, then
// the rest walked as difflib's compute walks its table of the longest common subsequences of
// the remaining suffixes.
func lineDiff(left, right []string) []difflib.DiffRecord {
	start := 0
	for start < len(left) && start < len(right) && left[start] == right[start] {
		start++
	}
	end := 0
	for i, j := len(left)-1, len(right)-1; i > start && j > start && left[i] == right[j]; i, j = i-1, j-1 {
		end++
	}
	var recs []difflib.DiffRecord
	for i, l := range left[:start] {
		recs = append(recs, difflib.DiffRecord{Payload: l, Delta: difflib.Common, LineLeft: i, LineRight: i})
	}
	recs = append(recs, walk(left[start:len(left)-end], right[start:len(right)-end], start)...)
	for i, l := range left[len(left)-end:] {
		recs = append(recs, difflib.DiffRecord{Payload: l, Delta: difflib.Common, LineLeft: len(left) - end + i, LineRight: len(right) - end + i})
	}
	return recs
}

// walk is difflib's compute(seq1, seq2, startLine). Its table T[i][j] is the length of the
// longest common subsequence of the last i lines of seq1 and the last j of seq2; from (len, len)
// it takes seq1's next line as removed while T[i-1][j] = T[i][j], else seq2's as added while
// T[i][j-1] = T[i][j], else the line as common. Here a row of T is a bit vector (Hyyrö's
// bit-parallel LCS: bit j-1 of row i clear where T[i][j] = T[i][j-1] + 1), only every k-th row is
// kept, and the rows between two kept ones are computed again when the walk reaches them.
func walk(seq1, seq2 []string, startLine int) []difflib.DiffRecord {
	n1, n2 := len(seq1), len(seq2)
	words := (n2 + 63) / 64
	// where each of seq2's lines stands, counted from its end (the table's columns)
	at := map[string][]int{}
	for j := 1; j <= n2; j++ {
		at[seq2[n2-j]] = append(at[seq2[n2-j]], j-1)
	}
	match := make([]uint64, words)
	// next computes row i (seq1's line n1-i against seq2) from row prev into row
	next := func(prev, row []uint64, i int) {
		cols := at[seq1[n1-i]]
		for _, c := range cols {
			match[c/64] |= 1 << (c % 64)
		}
		var carry uint64
		for w := range words {
			u := prev[w] & match[w]
			sum, c := bits.Add64(prev[w], u, carry)
			carry = c
			row[w] = sum | (prev[w] &^ match[w])
		}
		for _, c := range cols {
			match[c/64] = 0
		}
	}
	first := func() []uint64 {
		row := make([]uint64, words)
		for w := range row {
			row[w] = math.MaxUint64
		}
		return row
	}
	k := max(1, int(math.Sqrt(float64(n1))))
	kept := [][]uint64{first()}
	prev, row := first(), make([]uint64, words)
	for i := 1; i <= n1; i++ {
		next(prev, row, i)
		if i%k == 0 {
			kept = append(kept, slices.Clone(row))
		}
		prev, row = row, prev
	}
	// T[i][j]: j minus the set bits of row i below j
	value := func(row []uint64, j int) int {
		ones := 0
		for w := 0; w < j/64; w++ {
			ones += bits.OnesCount64(row[w])
		}
		if j%64 != 0 {
			ones += bits.OnesCount64(row[j/64] & (1<<(j%64) - 1))
		}
		return j - ones
	}
	block := make([][]uint64, k+1) // rows c..c+k of the block the walk is in
	for r := range block {
		block[r] = make([]uint64, words)
	}
	c := -1
	rowAt := func(i int) []uint64 { return block[i-c] }
	var recs []difflib.DiffRecord
	i, j := n1, n2
	for i > 0 || j > 0 {
		if i > 0 && (c < 0 || i-1 < c) {
			c = (i - 1) / k * k
			copy(block[0], kept[c/k])
			for r := c + 1; r <= min(c+k, n1); r++ {
				next(block[r-c-1], block[r-c], r)
			}
		}
		switch {
		case i > 0 && value(rowAt(i), j) == value(rowAt(i-1), j):
			recs = append(recs, difflib.DiffRecord{Payload: seq1[n1-i], Delta: difflib.LeftOnly, LineLeft: startLine + n1 - i, LineRight: startLine + n2 - j})
			i--
		case j > 0 && (i == 0 || rowAt(i)[(j-1)/64]&(1<<((j-1)%64)) != 0):
			recs = append(recs, difflib.DiffRecord{Payload: seq2[n2-j], Delta: difflib.RightOnly, LineLeft: startLine + n1 - i, LineRight: startLine + n2 - j})
			j--
		default:
			recs = append(recs, difflib.DiffRecord{Payload: seq1[n1-i], Delta: difflib.Common, LineLeft: startLine + n1 - i, LineRight: startLine + n2 - j})
			i--
			j--
		}
	}
	return recs
}
