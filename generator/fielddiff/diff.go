// Package fielddiff computes the structural difference between a desired and a live object:
// maps by key, lists by their merge keys as Kubernetes' structured-merge-diff schema defines
// them (containers by name, ports by containerPort+protocol...), values compared semantically.
package fielddiff

import (
	"fmt"
	"reflect"
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
)

// Delta is one differing field. A subtree present on one side only is one Delta at its root.
type Delta struct {
	Path    Path
	Change  Change
	Desired any    // value in the desired object, nil when absent
	Live    any    // value in the live object, nil when absent
	Noise   string // why this is not a finding (see Noise* constants), "" for a finding
}

// Diff compares desired with live. Both are normalised first (see Normalize) so that encoding
// differences such as "0.5" vs "500m" or 1 vs 1.0 are not differences; reported values are
// the normalised ones.
func Diff(desired, live *unstructured.Unstructured) ([]Delta, error) {
	d, l := Normalize(desired), Normalize(live)
	cmp, err := compare(d, l)
	if err != nil {
		return nil, fmt.Errorf("diffing %s %s: %w", live.GetKind(), live.GetName(), err)
	}
	var out []Delta
	add := func(s *fieldpath.Set, c Change) {
		for _, p := range topMost(s) {
			dv, _ := p.Get(d.Object)
			lv, _ := p.Get(l.Object)
			if c == Modified && equalValues(dv, lv) {
				continue
			}
			out = append(out, Delta{Path: p, Change: c, Desired: dv, Live: lv, Noise: noise(p)})
		}
	}
	add(cmp.Added, Added)
	add(cmp.Removed, Removed)
	add(cmp.Modified, Modified)
	sort.Slice(out, func(i, j int) bool { return out[i].Path.String() < out[j].Path.String() })
	return out, nil
}

func compare(d, l *unstructured.Unstructured) (*typed.Comparison, error) {
	td, tl, err := toTyped(d, l)
	if err != nil {
		return nil, err
	}
	return td.Compare(tl)
}

// topMost reduces a set to the roots of its subtrees, so an added map or list item is one
// delta. A noisy path is never merged into its parent: an annotations map that only holds
// kapp's annotations stays noise, and a real annotation next to them stays a finding.
func topMost(s *fieldpath.Set) []Path {
	var all []Path
	s.Iterate(func(p fieldpath.Path) { all = append(all, Path(p.Copy())) })
	hasNoisyChild := map[string]bool{}
	for _, p := range all {
		if noise(p) != "" {
			for i := 1; i < len(p); i++ {
				hasNoisyChild[p[:i].String()] = true
			}
		}
	}
	var out []Path
	for _, p := range all {
		if hasNoisyChild[p.String()] {
			continue
		}
		root := true
		for i := 1; i < len(p) && root; i++ {
			q := p[:i]
			if s.Has(fieldpath.Path(q)) && !hasNoisyChild[q.String()] {
				root = false
			}
		}
		if root {
			out = append(out, p)
		}
	}
	return out
}

// equalValues compares numbers by value (int64 vs float64) and everything else deeply.
func equalValues(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}
