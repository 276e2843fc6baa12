package classify

import (
	"slices"
	"sort"
	"strings"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// kappAnnotationsFromGit finds the annotations under kapp's prefix that the manifest declares
// (a change group, an update strategy...) with a value neither kapp's last apply
// (kapp.k14s.io/original) nor the live object holds, while the live object holds what kapp
// applied: a change made in Git, which this deploy applies. The field diff hides every key
// under kapp's prefix as kapp's own bookkeeping, so these are added here (outside probe 6,
// finding 10: such an annotation added in Git was a residual ghost diff). Without kapp's last
// apply a change made in Git cannot be told from one made on the cluster: nothing is said.
func kappAnnotationsFromGit(fc fieldContext) []Finding {
	if fc.sent == nil || fc.lastApply != kappApply {
		return nil
	}
	declared := fc.desired.GetAnnotations()
	sentAnn := map[string]any{}
	if md, ok := fc.sent["metadata"].(map[string]any); ok {
		sentAnn, _ = md["annotations"].(map[string]any)
	}
	liveAnn := fc.live.GetAnnotations()
	// kapp's own bookkeeping, and the annotations that make kapp apply nothing to the resource
	// (noop, exists, update strategy skip): a change beside those is never applied, which check
	// reports as hidden, naming the manifest's annotation; the nonce is kappNonce's
	bookkeeping := append(kappconv.HistoryAnnotations(), kappconv.IdentityAnnotation, kappconv.NoopAnnotation, kappconv.ExistsAnnotation, kappconv.Nonce)
	keys := make([]string, 0, len(declared))
	for k, v := range declared {
		if strings.HasPrefix(k, kappconv.Prefix) && !slices.Contains(bookkeeping, k) && !(k == kappconv.UpdateStrategy && v == "skip") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []Finding
	for _, k := range keys {
		want := declared[k]
		sent, wasSent := sentAnn[k].(string)
		got, isLive := liveAnn[k]
		if wasSent && sent == want || isLive && got == want {
			continue // kapp applied it already, or the live object holds it
		}
		if wasSent != isLive || wasSent && sent != got {
			continue // the cluster changed too: not a change made in Git alone
		}
		f := Finding{
			Path:    fielddiff.FromFields([]string{"metadata", "annotations", k}),
			Change:  fielddiff.Removed,
			Class:   Pending,
			Desired: want,
		}
		if isLive {
			f.Change, f.Live = fielddiff.Modified, got
			f.Evidence = "a change made in Git: the live value is what kapp last applied (" + kappconv.Original + "); the manifest now declares another, which this deploy applies"
		} else {
			f.Evidence = "a change made in Git: kapp's last apply (" + kappconv.Original + ") did not hold this annotation, nor does the live object; the manifest now declares it, which this deploy applies"
		}
		out = append(out, f)
	}
	return out
}

// kappNonce is the manifest's kapp.k14s.io/nonce "": kapp writes a new value there on every
// deploy, so every deploy updates the resource, as the manifest asks: a change from Git on every
// deploy, whatever the live object holds (the value kapp wrote last time, or none). Its desired
// value is what kapp applies (kappconv.NewNonce); doc names the manifest's document.
func kappNonce(fc fieldContext, doc string) []Finding {
	v, ok := fc.desired.GetAnnotations()[kappconv.Nonce]
	if !ok || v != "" {
		return nil // another value fails kapp's deploy: preparing the manifest says so
	}
	f := Finding{Path: fielddiff.FromFields([]string{"metadata", "annotations", kappconv.Nonce}), Change: fielddiff.Removed, Class: Pending, Desired: kappconv.NewNonce,
		Evidence: "the manifest (" + doc + ") declares " + kappconv.Nonce + `: "", so kapp writes a new value there on every deploy (kapp's own behaviour, app/preparation.go addNonce) and updates the resource every time; take the annotation out of the manifest for kapp to keep the resource`}
	if live, ok := fc.live.GetAnnotations()[kappconv.Nonce]; ok {
		f.Change, f.Live = fielddiff.Modified, live
	}
	return []Finding{f}
}
