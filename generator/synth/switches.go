package synth

// Rules for the fields of a map holding its one handler only while a field of its own names it
// (classify.Switched: a Deployment's strategy.rollingUpdate, by its type).

import (
	"fmt"
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/words"
)

// switchRewrite returns, for f, a finding of r at a switch's handler or at its type where the
// manifest declares the switch's map without the handler (strategy: {type: RollingUpdate}, or
// strategy: {}), the rewrite of the manifest's map into the live one: only while the manifest's
// map is exactly that one and the live map this one. kapp's path matchers cannot test a value,
// so a copy of rollingUpdate from the live object also acted once Git switched the type to
// Recreate, and the API server refused the object kapp applied (probe13 P13-1); the type is
// rewritten with it where the manifest lacks it too, as a copy of the type ahead of the rewrite
// would leave the manifest's map no longer the one the rewrite replaces. ok false otherwise.
func switchRewrite(r classify.Resource, f classify.Finding) (Rewrite, bool) {
	parent, s, ok := classify.Switched(f.Path)
	if !ok || len(f.Path) != len(parent)+1 || f.Change != fielddiff.Added {
		return Rewrite{}, false
	}
	desired, live, err := r.Objects()
	if err != nil {
		return Rewrite{}, false // classify decoded them: a bug; the plain copy stays, gated
	}
	from, _ := parent.GetDeclared(desired.Object)
	to, _ := parent.GetDeclared(live.Object)
	m, isMap := from.(map[string]any)
	if _, liveMap := to.(map[string]any); !isMap || !liveMap || m[s.Handler] != nil {
		return Rewrite{}, false
	}
	return Rewrite{Path: parent, From: from, To: to}, true
}

// switchGate returns, for a path into a switch's handler (strategy.rollingUpdate.maxSurge), the
// path of the handler and the matcher acting only where the object kapp rebases holds it: kapp's
// copy makes every map the object lacks, so a copy of maxSurge where Git switched to Recreate and
// removed rollingUpdate wrote rollingUpdate back beside it, which the API server refuses. Where
// the manifest declares rollingUpdate beside another type, the API server refuses the manifest
// itself. ok false for any other path.
func switchGate(p fielddiff.Path) (handler fielddiff.Path, m Matcher, while string, ok bool) {
	parent, s, ok := classify.Switched(p)
	if !ok || len(p) <= len(parent)+1 || *p[len(parent)].FieldName != s.Handler {
		return nil, Matcher{}, "", false
	}
	handler = append(slices.Clone(parent), fieldpath.PathElement{FieldName: &s.Handler})
	e := emptyAt(handler)
	while = fmt.Sprintf("%s is not empty: kapp's copy would make it where Git removed it, beside %s naming another (the API server refuses it for %s)", handler, words.A(s.By), s.Refused)
	return handler, Matcher{Not: &Not{Matcher: Matcher{EmptyField: &e}}}, while, true
}
