package classify

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// reorderedInGit finds the associative lists (containers, env...) whose items the manifest lists
// in another order than kapp's last apply (kapp.k14s.io/original), the live object holding that
// order: a change made in Git, which this deploy applies. The field diff pairs such items by
// merge key, so it finds no field there, while kapp diffs the objects' text, where the order is a
// difference, and the server stores the order kapp applies (newcomer9 N9-6: two containers
// swapped in Git were a residual ghost diff, and explain showed nothing). An order the server or
// a controller gave the live object is not one (fielddiff.Reordered); without kapp's last apply
// nothing tells one from the other: nothing is said.
func reorderedInGit(fc fieldContext) []Finding {
	if fc.sent == nil || fc.lastApply != kappApply {
		return nil
	}
	var out []Finding
	for _, r := range fielddiff.Reordered(fc.desired, &unstructured.Unstructured{Object: fc.sent}, fc.live) {
		out = append(out, Finding{Path: r.Path, Change: fielddiff.Modified, Class: Pending, Reordered: true,
			Desired: strings.Join(r.Desired, ", "), Live: strings.Join(r.Original, ", "),
			Evidence: "a change of order made in Git: the manifest lists these items in another order than kapp last applied (" + kappconv.Original +
				"), which the live object holds; kapp compares the objects' text, so this deploy applies the new order and the server stores it"})
	}
	return out
}
