package classify

// Whether Git changed a differing field since kapp's last apply (kapp.k14s.io/original).

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// changedInGit reports whether a declared field differs from the live object only because the
// manifest changed since kapp's last apply: kapp.k14s.io/original (what kapp last applied) holds
// the live value there (a quantity in another form than the server stores it in counts: cpu "0.5"
// stored as 500m), or lacks the field as the live object does. A field the manifest no longer
// declares is not counted: kapp's rebase rules copy live values into what it applies, so the
// original holding the live value there says nothing about Git. Nor is apiVersion: the server
// returns the object in the version it serves, whatever version the manifest names.
func changedInGit(fc fieldContext, d fielddiff.Delta) bool {
	if fc.sentAt == nil || d.Change == fielddiff.Added || d.Change == fielddiff.Canonical || d.Path.String() == "apiVersion" {
		return false
	}
	sv, ok := fc.sentAt.GetDeclared(d.Path)
	if d.Change == fielddiff.Removed {
		return !ok || sv == nil || onlyKappKeys(sv)
	}
	return ok && fielddiff.StoredAs(fc.sent, d.Path, sv, d.Live)
}

// onlyKappKeys reports a map holding kapp's own keys alone: the field diff leaves them out of
// both sides, so a map the live object holds only kapp's labels in is absent there, and kapp's
// last apply holding the same held nothing else (a label the Config's additionalLabels now has
// kapp write into a StatefulSet's volumeClaimTemplates beside its own: outside probe 12, P12-2).
func onlyKappKeys(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) > 0 && !slices.ContainsFunc(slices.Collect(maps.Keys(m)), func(k string) bool { return !strings.HasPrefix(k, kappconv.Prefix) })
}

// changedSinceApplied reports whether the manifest declares another value than kapp's last
// apply (kapp.k14s.io/original) held there: Git changed it since. A field kapp's last apply did
// not hold stays the controller's (a declared revision annotation: the warning says to drop it). kapp records the manifest before its rebase rules, so an
// unchanged manifest never differs, whatever a rule copied from the live object.
func changedSinceApplied(fc fieldContext, d fielddiff.Delta) bool {
	if fc.sentAt == nil || d.Change != fielddiff.Modified || d.Path.String() == "apiVersion" {
		return false
	}
	want, declared := d.Path.GetDeclared(fc.desired.Object) // d.Desired is masked for a Secret
	sv, ok := fc.sentAt.GetDeclared(d.Path)
	return declared && ok && !fielddiff.Equal(sv, want)
}

// newlyDeclared reports whether the manifest declares, with another value than the live one, a
// field kapp's last apply (kapp.k14s.io/original) did not hold. Asked only once nothing else
// explains the live value (a person's tool, a controller, defaulting of the manifest): kapp
// writes with Update, which credits it with every field the server filled in, so the live value
// is the server's answer to a manifest that left the field out, and the manifest changed since.
func newlyDeclared(fc fieldContext, d fielddiff.Delta) bool {
	if fc.sentAt == nil || d.Change != fielddiff.Modified || d.Path.String() == "apiVersion" {
		return false
	}
	_, ok := fc.sentAt.GetDeclared(d.Path)
	return !ok
}

// removedInGit reports whether a field the manifest does not declare was in what kapp last
// applied (kapp.k14s.io/original). Asked only once nothing else explains the live value: a rebase
// rule copying a defaulted, calculated or controller's value from the live object puts it into
// kapp's last apply too, which says nothing about Git there.
func removedInGit(fc fieldContext, d fielddiff.Delta) bool {
	if fc.sentAt == nil || d.Change != fielddiff.Added {
		return false
	}
	sv, ok := fc.sentAt.GetDeclared(d.Path)
	return ok && sv != nil
}

// removes says what the next apply does to a field the manifest no longer declares (d: only the
// live object holds it): removes it, or, where the API server's defaulting of the manifest gives
// it a value, has the server default it anew to that value. The update kapp sends lacks the field
// and the server defaults it as on create (a ReplicationController's replicas: 1, a probe's
// scheme: HTTP): "removes it" read as the field going away, and the deploy scaling the
// controller down to 1 went unsaid (newcomer14 N14-2).
func removes(fc fieldContext, d fielddiff.Delta) string {
	if v, ok := defaultedAgain(fc, d.Path); ok {
		return "the server defaults it to " + quoted(v) + " on " + fc.lastApply.deploy
	}
	return fc.lastApply.deploy + " removes it"
}

// defaultedAgain is the value the API server's defaulting of the manifest gives the field at path
// (the manifest leaving it out); false where it gives none.
func defaultedAgain(fc fieldContext, path fielddiff.Path) (any, bool) {
	if fc.defaultedAt == nil {
		return nil, false
	}
	v, ok := fc.defaultedAt.Get(path)
	return v, ok && v != nil
}

// removedAsSent returns the value at d, a field only the live object holds, where kapp's last
// apply (kapp.k14s.io/original) declared that same value: the manifest declared it then (kapp
// records the manifest before its rebase rules) and no longer does.
func removedAsSent(fc fieldContext, d fielddiff.Delta) (any, bool) {
	if !removedInGit(fc, d) {
		return nil, false
	}
	sv, _ := fc.sentAt.GetDeclared(d.Path)
	return sv, fielddiff.Equal(sv, d.Live)
}

// insertedInGit reports whether d, an atomic list the manifest inserted items into before the
// live items' end (fielddiff.Delta.Inserted), differs from the live list only because the
// manifest changed since kapp's last apply: what kapp last applied, as the API server's defaulting
// makes it, is the live list (a NetworkPolicy's rules hold the protocol: TCP the server
// defaulted, which neither the manifest nor kapp.k14s.io/original declares: newcomer14 N14-3).
func (c *classifier) insertedInGit(fc fieldContext, d fielddiff.Delta) bool {
	if d.Inserted == nil {
		return false
	}
	v, ok := c.sentDefaulted(fc, d.Path)
	return ok && fielddiff.Equal(v, d.Live)
}

// insertedItems names the items inserted into a list, each as JSON: "item {...}", "items {...}, {...}".
func insertedItems(items []any) string {
	shown := make([]string, len(items))
	for i, v := range items {
		bs, _ := json.Marshal(v)
		shown[i] = string(bs)
	}
	if len(items) == 1 {
		return "the item " + shown[0]
	}
	return "the items " + strings.Join(shown, ", ")
}
