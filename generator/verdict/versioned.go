package verdict

// The deploy's versioned resources, beside which kapp diffs every resource of their app.

import (
	"maps"
	"strconv"
	"strings"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
)

// besideOf is, for each resource of an app holding versioned resources, the app's other
// versioned pairs as the deploy holds them (verify.Pair.Beside): kapp's deploy writes their
// versioned names into the references its templateRules name (diff/versioned_resource.go), so
// a changed copy of a resource asked about without them is not what kapp deploys (probe11
// P11-3: a Deployment's configMapRef.name cfg, which kapp writes as cfg-ver-1). nil where the
// deploy holds none.
func besideOf(rep *classify.Report) (map[pair.Identity][]verify.Pair, error) {
	byApp := map[string][]verify.Pair{}
	ids := map[string][]pair.Identity{}
	for _, r := range rep.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			return nil, err
		}
		if _, ok := desired.GetAnnotations()[kappconv.Versioned]; !ok {
			continue
		}
		app := live.GetLabels()[kappconv.AppLabel]
		byApp[app] = append(byApp[app], pairOf(desired, live))
		ids[app] = append(ids[app], r.ID)
	}
	if len(byApp) == 0 {
		return nil, nil
	}
	out := map[pair.Identity][]verify.Pair{}
	for _, r := range rep.Resources {
		live, err := r.Live.Object()
		if err != nil {
			return nil, err
		}
		app := live.GetLabels()[kappconv.AppLabel]
		beside := []verify.Pair{}
		for k, p := range byApp[app] {
			if ids[app][k] != r.ID {
				beside = append(beside, p)
			}
		}
		if len(byApp[app]) > 0 {
			out[r.ID] = beside
		}
	}
	return out, nil
}

// nextVersion is what kapp's deploy writes into a reference to a versioned resource of beside,
// at at (by index), once that resource changes in Git: its NAME-ver-(N+1), N its newest live
// version. A reference is a declared value naming the resource's base name whose live value is
// one of its versions: kapp's templateRules rewrote it there; or a kapp.k14s.io/
// versioned-explicit-ref annotation (explicitNext). The mutation check's own draws never name a
// versioned resource, so kapp leaves them, and a rule acting only on the names kapp writes
// (keeping the live version wherever a reference holds one) is never hit by them.
func nextVersion(at fielddiff.Path, declared, live any, inLive bool, beside []verify.Pair) (string, bool) {
	name, ok := declared.(string)
	liveName, okLive := live.(string)
	if !ok || !inLive || !okLive {
		return "", false
	}
	if key, ok := explicitRefAt(at); ok {
		return explicitNext(key, name, liveName, beside)
	}
	if base, ver := kappconv.SplitVersionedName(liveName); base != name || ver == "" {
		return "", false
	}
	newest := newestVersion(beside, func(p verify.Pair) bool { return p.Desired.GetName() == name })
	if newest < 0 {
		return "", false
	}
	return kappconv.VersionedName(name, newest+1), true
}

// newestVersion is the newest live version of the versioned pairs of beside that is selects, -1
// where none has one.
func newestVersion(beside []verify.Pair, is func(verify.Pair) bool) int {
	newest := -1
	for _, p := range beside {
		if !is(p) || p.Live == nil {
			continue
		}
		base, ver := kappconv.SplitVersionedName(p.Live.GetName())
		if n, err := strconv.Atoi(ver); err == nil && base == p.Desired.GetName() && n > newest {
			newest = n
		}
	}
	return newest
}

// explicitRefAt is the annotation key at names, where it is one kapp reads as an explicit
// versioned reference (diff/versioned_resource.go updateAffected: the key, or the key with a "."
// and a suffix).
func explicitRefAt(at fielddiff.Path) (string, bool) {
	if len(at) != 3 || at[0].FieldName == nil || *at[0].FieldName != "metadata" || at[1].FieldName == nil ||
		*at[1].FieldName != "annotations" || at[2].FieldName == nil {
		return "", false
	}
	key := *at[2].FieldName
	return key, key == kappconv.VersionedExplicitRef || strings.HasPrefix(key, kappconv.VersionedExplicitRef+".")
}

// explicitNext is nextVersion of a kapp.k14s.io/versioned-explicit-ref annotation (key) the
// manifest declares as declared and the live object holds as live: where live is what kapp
// writes of declared for one of the resource's versions (its name NAME-ver-N where declared names
// NAME), what kapp writes of it for the next version, NAME-ver-(N+1), as kapp writes it (its own
// ExplicitVersionedRef: the reference re-marshalled with the versioned name).
func explicitNext(key, declared, live string, beside []verify.Pair) (string, bool) {
	ref, err := ctldiff.NewExplicitVersionedRef(key, declared).AsObjectRef()
	if err != nil {
		return "", false
	}
	liveRef, err := ctldiff.NewExplicitVersionedRef(key, live).AsObjectRef()
	if err != nil {
		return "", false
	}
	name, _ := ref["name"].(string)
	liveName, _ := liveRef["name"].(string)
	if base, ver := kappconv.SplitVersionedName(liveName); base != name || ver == "" {
		return "", false
	}
	written := func(version string) (string, bool) {
		named := maps.Clone(ref)
		named["name"] = version
		mod, err := ctldiff.NewExplicitVersionedRef(key, declared).AnnotationMod(named)
		return mod.KVs[key], err == nil
	}
	if now, ok := written(liveName); !ok || now != live {
		return "", false // live is no version kapp wrote of the manifest's reference
	}
	ns, _ := ref["namespace"].(string)
	newest := newestVersion(beside, func(p verify.Pair) bool {
		return p.Desired.GetName() == name && p.Desired.GetKind() == ref["kind"] && p.Desired.GetAPIVersion() == ref["apiVersion"] &&
			(ns == "" || p.Desired.GetNamespace() == ns)
	})
	if newest < 0 {
		return "", false
	}
	return written(kappconv.VersionedName(name, newest+1))
}

// kappNames are the names kapp matches a rule on desired by: the manifest's (kapp's deploy labels
// it under that name, ownershipLabelRules and labelScopingRules; a rebase rule never sees it on a
// versioned resource, renamed before its rebase, unless versioned-keep-original makes kapp diff
// a copy under it: the names disagree there, and decidedAs leaves the rule to kapp's rebase,
// which matches it as kapp does; lint warns of a rebase rule naming it), and, for a versioned resource
// whose live object is NAME-ver-N, NAME-ver-N, as it appears live (kapp's built-in rules copy the
// live metadata, name included, before any other rebase rule, and diff/rebased_resource.go
// matches each rule on the object so rebased) and NAME-ver-(N+1), the name kapp gives the new
// version it diffs (assignNewNames: the diffAgainstExisting exclusions and template rules are
// matched on it). A rule naming the resource by a versioned name acts on it (probe12 P12-3: a
// copy of data from the live cfg-ver-1 hid every change of the ConfigMap, unchecked).
func kappNames(desired, live *unstructured.Unstructured) []string {
	names := []string{desired.GetName()}
	if live == nil {
		return names
	}
	if _, ok := desired.GetAnnotations()[kappconv.Versioned]; !ok {
		return names
	}
	base, ver := kappconv.SplitVersionedName(live.GetName())
	if n, err := strconv.Atoi(ver); err == nil && base == desired.GetName() {
		names = append(names, live.GetName(), kappconv.VersionedName(base, n+1))
	}
	return names
}

// namedAs is desired under another name: a copy of its top level and metadata, the rest shared.
func namedAs(desired *unstructured.Unstructured, name string) *unstructured.Unstructured {
	if name == desired.GetName() {
		return desired
	}
	obj := maps.Clone(desired.Object)
	if meta, ok := obj["metadata"].(map[string]any); ok {
		obj["metadata"] = maps.Clone(meta)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetName(name)
	return u
}

// matchedAs is desired's identity under each of its kappNames.
func matchedAs(desired, live *unstructured.Unstructured) []kappmatch.Identity {
	var ids []kappmatch.Identity
	for _, name := range kappNames(desired, live) {
		ids = append(ids, kappmatch.IdentityOf(namedAs(desired, name)))
	}
	return ids
}

// decidedAs is m decided on the resource by its identities (matchedAs): decided where each
// decides it and all agree (matching then says how), else kapp's rebase says whether it acts.
func decidedAs(m kappmatch.Matcher, ids []kappmatch.Identity) (matches, decided bool) {
	for i, id := range ids {
		mi, di := m.ByIdentityOf(id)
		if !di || i > 0 && mi != matches {
			return false, false
		}
		matches = mi
	}
	return matches, true
}

// matchesAs reports whether rule matches desired under any of its kappNames.
func matchesAs(rule Rule, desired, live *unstructured.Unstructured) bool {
	for _, name := range kappNames(desired, live) {
		if rule.Matches(namedAs(desired, name)) {
			return true
		}
	}
	return false
}
