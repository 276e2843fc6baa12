package verdict

// The annotations and labels kapp reads only through rule matchers: the mutation check changes,
// or removes, them together with the resource's other values.

import (
	"slices"
	"strings"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// entryReads is what the matchers of a resource's rules read of it beyond its identity
// (kappmatch.Matcher.Reads), kapp's built-in rules' with them (secretgen's annotation on a
// Secret); unknown where kapp's built-in rules cannot be read.
type entryReads struct {
	paths   []ctlres.Path
	unknown bool
}

// readsOf is entryReads of desired: the paths the rules in force read (touch.readsAt) and those
// kapp's built-in rules not ruled out by desired's identity read.
func readsOf(desired *unstructured.Unstructured, rules []ctlres.Path) entryReads {
	builtin, ok := builtinRules()
	if !ok {
		return entryReads{unknown: true}
	}
	out := entryReads{paths: slices.Clone(rules)}
	for _, r := range builtin {
		if !r.ok {
			continue
		}
		if matches, decided := r.matcher.ByIdentity(desired); !decided || matches {
			out.paths = append(out.paths, r.matcher.Reads()...)
		}
	}
	return out
}

// shared reports whether the value at p (by index) is an annotation or a label the mutation
// check may change, or remove, in a rebase shared with the resource's other values: kapp's deploy
// reads its own keys (kapp.k14s.io/: an update strategy, a nonce, change groups, the app label;
// kapp-controller's k14s.io keys with them), and a rule's matcher reads an annotation's presence
// (hasAnnotationMatcher) or whether a map is empty (emptyFieldMatcher). A changed value keeps
// both; a removal keeps the map non-empty where one of its entries is removed apart (apart), and
// is apart where a matcher reads the entry itself.
func (r entryReads) shared(p fielddiff.Path) bool {
	if r.unknown || len(p) != 3 || slices.ContainsFunc(p, func(pe fieldpath.PathElement) bool { return pe.FieldName == nil }) {
		return false
	}
	if *p[0].FieldName != "metadata" || *p[1].FieldName != "annotations" && *p[1].FieldName != "labels" || strings.Contains(*p[2].FieldName, "k14s.io/") {
		return false
	}
	kp := kappPath(p)
	return !slices.ContainsFunc(r.paths, func(q ctlres.Path) bool { return len(q) >= len(kp) && overlap(kp, q) })
}
