package argocd

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	gdiff "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/diff"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Problem is a resource's field the verdict names.
type Problem struct {
	Resource pair.Identity
	Path     string // by key; "" for the whole resource
	Class    string // the field's class label, when classification explains it
	// At: for a hidden change or a masked field, where the entry hiding it is written (the first
	// that hides it alone); zero when only the entries together do, or none was read from a file.
	At verdict.RuleAt
	// Owner: for a hidden change made in Git, the manager other than Argo CD owning the field,
	// whose exemption holds only for the value Argo CD last applied; "" when none does.
	Owner string
	// SyncKeeps: the sync of the Application tracking the resource keeps the live value here
	// (its sync option RespectIgnoreDifferences=true): a change made in Git never reaches the
	// cluster; else the next sync applies the manifest's value (respect.go).
	SyncKeeps bool
	// Manual: SyncKeeps was judged from a manual sync's options (SyncedWith), which replace the
	// Application's, not from the Application's.
	Manual bool
}

// Verification is Argo CD's verdict on a set of ignores over the analysed pairs.
type Verification struct {
	Paired   int       // resources compared
	Kept     int       // of those, in sync under the ignores
	Ghost    int       // resources Argo CD shows OutOfSync for ghost differences only
	InSync   int       // of those, the ones in sync under the ignores
	OutSync  []Problem // fields Argo CD still shows under the ignores on ghost-only resources
	Hidden   []Problem // declared values an ignore hides: a change made in Git there never shows
	Masked   []Problem // declared values an ignore hides where a controller owns the field (its evidence)
	Mutation int       // declared values changed in turn (the mutation check)
}

// OK reports whether the ignores keep every ghost-only resource in sync and hide no change made
// in Git.
func (v Verification) OK() bool { return len(v.OutSync) == 0 && len(v.Hidden) == 0 }

// Verify judges s with Argo CD's own comparison: every resource in ghost (Argo CD shows it
// OutOfSync for ghost differences only, see Result.Ghost) must be in sync under s; and every
// scalar value a desired object declares, in a resource some entry of s applies to, is changed
// in turn: Argo CD must show the change under s unless it shows it without s neither (its own
// normalisation) or a controller owns the field, with classification's evidence (Masked).
func Verify(rep *classify.Report, s Settings, ghost []pair.Identity) (Verification, error) {
	v := Verification{Ghost: len(ghost), Paired: len(rep.Resources)}
	s, err := s.withSchemas(rep)
	if err != nil {
		return Verification{}, err
	}
	for _, r := range rep.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			return Verification{}, err
		}
		keeps := s.keepsIgnored(live.Unstructured)
		s := s.For(live.Unstructured)
		base, err := Diff(desired.Unstructured, live.Unstructured, s)
		if err != nil {
			return Verification{}, err
		}
		if !base.Modified {
			v.Kept++
		}
		if slices.Contains(ghost, r.ID) {
			if base.Modified {
				shown, err := shownPaths(base)
				if err != nil {
					return Verification{}, err
				}
				if len(shown) == 0 {
					v.OutSync = append(v.OutSync, Problem{Resource: r.ID})
				}
				for _, p := range shown {
					problem := Problem{Resource: r.ID, Path: p.String()}
					if f, ok := explaining(r, p); ok {
						problem.Class = f.Label()
					}
					v.OutSync = append(v.OutSync, problem)
				}
			} else {
				v.InSync++
			}
		}
		if !s.Applies(desired.Unstructured) {
			continue
		}
		// Without ignores is without the manifest's own ignore annotation too (WithAnnotations).
		bare := withoutAnnotatedIgnores(desired.Unstructured)
		plain, err := Diff(bare, live.Unstructured, s.Plain())
		if err != nil {
			return Verification{}, err
		}
		// The mutation check compares under the pointers that resolve in the objects: the others
		// remove nothing, and Argo CD applies each pointer as its own patch over the whole object.
		predicted, normalized, err := objects(plain)
		if err != nil {
			return Verification{}, fmt.Errorf("argo cd diff result: %w", err)
		}
		s = s.resolving(desired.Object, live.Object, predicted, normalized)
		resolved, err := Diff(desired.Unstructured, live.Unstructured, s)
		if err != nil {
			return Verification{}, err
		}
		m := &mutation{r: r, desired: desired.Unstructured, live: live.Unstructured, s: s, resolved: resolved, plain: plain, v: &v, keeps: keeps}
		// The change the manifest holds: a field Argo CD shows without the ignores and not under
		// them, which no class explains as a ghost, is a difference a sync never applies (a value
		// or a removal made in Git that an ignore singles out, which no drawn value may hit).
		if plain.Modified {
			without, err := shownPaths(plain)
			if err != nil {
				return Verification{}, err
			}
			under := map[string]bool{}
			if base.Modified {
				paths, err := shownPaths(base)
				if err != nil {
					return Verification{}, err
				}
				for _, p := range paths {
					under[p.String()] = true
				}
			}
			for _, p := range without {
				if under[p.String()] || p.String() == annotatedIgnoresPath {
					continue
				}
				if f, ok := explaining(r, p); ok && f.Class.Ghost() {
					continue
				}
				if err := m.recordHeld(p, m.hidesPath(p)); err != nil {
					return Verification{}, err
				}
			}
		}
		if err := m.values(); err != nil {
			return Verification{}, err
		}
		if err := m.removals(); err != nil {
			return Verification{}, err
		}
	}
	// one field, one verdict: a change made in Git the ignores hide is hidden, not masked, though
	// a value drawn there was masked
	v.Masked = slices.DeleteFunc(v.Masked, func(m Problem) bool {
		return slices.ContainsFunc(v.Hidden, func(h Problem) bool { return h.Resource == m.Resource && h.Path == m.Path })
	})
	return v, nil
}

// blame is where the first of s's entries is written under which alone hides says Argo CD hides
// the change (a manifest's ignore annotation: under no other ignore, the annotation in force;
// any other entry: with the annotation out of force); zero when none does alone.
func (s Settings) blame(hides func(sub Settings, strip bool) (bool, error)) (verdict.RuleAt, error) {
	for _, e := range s.entries() {
		if e.at == (verdict.RuleAt{}) {
			continue // nowhere to point at
		}
		sub, strip := s.alone(e)
		hidden, err := hides(sub, strip)
		if err != nil {
			return verdict.RuleAt{}, err
		}
		if hidden {
			return e.at, nil
		}
	}
	return verdict.RuleAt{}, nil
}

// alone is s with e the only entry in force, and whether the manifest's ignore annotation is
// then out of force (strip): it is for every entry but the annotation's own.
func (s Settings) alone(e entry) (sub Settings, strip bool) {
	sub, strip = s.Plain(), true
	switch {
	case e.at.Key == annotatedKey:
		strip = false
	case e.override != "":
		sub.Overrides = map[string]v1alpha1.ResourceOverride{e.override: s.Overrides[e.override]}
	default:
		sub.Ignores, sub.ignoresAt, sub.ignoresOf = []Ignore{e.Ignore}, []verdict.RuleAt{e.at}, []appRef{e.of}
	}
	sub.controlPlane = s.controlPlane
	return sub, strip
}

// shows reports whether Argo CD shows desired, a changed manifest, otherwise than base, its
// verdict on the manifest before the change: OutOfSync with a predicted live object other than
// base's, or in sync where base was not (the change takes away a difference base showed: a
// removal that a two-way diff, without a last applied configuration, takes as nothing to change
// also drops a change made in Git to a field below it, which is no change hidden).
func shows(desired, live *unstructured.Unstructured, s Settings, base *gdiff.DiffResult, at fielddiff.Path) (bool, error) {
	res, err := Diff(desired, live, s)
	if err != nil {
		return false, err
	}
	if !res.Modified {
		return base.Modified, nil
	}
	if !bytes.Equal(res.PredictedLive, base.PredictedLive) {
		return true, nil
	}
	shown, err := outOfSyncAt(res, at)
	return shown[at.String()], err
}

// outOfSyncAt are the fields (by key) Argo CD shows OutOfSync in res, when asked about some (ats).
// A value changed or removed there shows, though Argo CD predicts the same live object as
// without the change: an ignore
// that takes the field from the manifest alone (a jq expression selecting by the value, so that
// it takes the value Git changed and not the live one) has Argo CD show the field's removal
// whatever the manifest's value, and a sync apply the manifest (probe17: an image bump under
// `select(.image | test("^nginx:1\\.25$") | not) | .image` is OutOfSync in Argo CD's StateDiff).
func outOfSyncAt(res *gdiff.DiffResult, ats ...fielddiff.Path) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ats) == 0 || !res.Modified {
		return out, nil
	}
	paths, err := shownPaths(res)
	for _, p := range paths {
		out[p.String()] = true
	}
	return out, err
}

// annotatedIgnoresPath is the field of the ignore annotation, which the comparison without
// ignores empties (withoutAnnotatedIgnores): a difference there is the check's own.
var annotatedIgnoresPath = fielddiff.Path{{FieldName: new("metadata")}, {FieldName: new("annotations")}, {FieldName: new(common.AnnotationKeyIgnoreDifferences)}}.String()

// resolving is s with only the JSON pointers that resolve in one of objs. A pointer that resolves
// in none removes nothing from an object of the same shape (a declared value changed in turn
// changes no key), so dropping it changes no comparison of such objects.
func (s Settings) resolving(objs ...map[string]any) Settings {
	keep := func(ptrs []string) []string {
		var out []string
		for _, p := range ptrs {
			for _, o := range objs {
				if resolves(o, p) {
					out = append(out, p)
					break
				}
			}
		}
		return out
	}
	out := s
	out.Ignores = make([]Ignore, len(s.Ignores))
	for i, ig := range s.Ignores {
		ig.JSONPointers = keep(ig.JSONPointers)
		out.Ignores[i] = ig
	}
	out.Overrides = make(map[string]v1alpha1.ResourceOverride, len(s.Overrides))
	for k, o := range s.Overrides {
		o.IgnoreDifferences.JSONPointers = keep(o.IgnoreDifferences.JSONPointers)
		out.Overrides[k] = o
	}
	return out
}

// resolves reports whether the JSON pointer p (RFC 6901) names a value in obj; a pointer that is
// not one (no leading /) is kept, as if it did.
func resolves(obj map[string]any, p string) bool {
	if !strings.HasPrefix(p, "/") {
		return true
	}
	var cur any = obj
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return false
			}
			cur = c[i]
		default:
			return false
		}
	}
	return true
}
