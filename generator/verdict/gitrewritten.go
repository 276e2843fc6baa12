package verdict

// The changes made in Git that the rules in force rewrite in the object kapp applies.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/kappcover"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/internal/words"
)

// gitChangesRewritten returns the changes made in Git (changedInGit) that the rules in force
// rewrite in the object kapp applies, where kapp's built-in rules alone apply them: kapp never
// applies them, whichever base it diffs against and whatever it reports. pendingHidden asks
// whether kapp shows a pending change; where the live object drifted too, kapp diffs against it
// and updates the resource for the drift, and a rule keyed to the value Git now holds (take the
// cluster's value when the manifest's is the new one) keeps the cluster's value all the same.
// Where the object kapp applies carries an annotation that makes kapp apply nothing to it
// (verify.AppliesNothing), every change is hidden, named by where the annotation comes from: the
// manifest's document, or the rules that write it.
func gitChangesRewritten(in Input) ([]Hidden, error) {
	var inForce, builtin kappcover.Rebaser
	ready := false
	var out []Hidden
	blame := newBlame(in)
	templated, templatedAlone, err := appliedWithTemplates(in)
	if err != nil {
		return nil, err
	}
	for _, r := range in.Report.Resources {
		changes := changedInGit(r)
		if len(changes) == 0 {
			continue
		}
		if !ready {
			ready = true
			var err error
			if inForce, err = kappcover.New(in.Configs, false); err != nil {
				return nil, err
			}
			if builtin, err = kappcover.New(nil, false); err != nil {
				return nil, err
			}
			// the Configs in force prepare the manifest whichever rules apply: a label their
			// additionalLabels add is applied by kapp's built-in rules alone (probe8 P8-1)
			builtin = builtin.PreparingAs(inForce)
		}
		desired, live, err := r.Objects()
		if err != nil {
			return nil, err
		}
		applied := func(rb kappcover.Rebaser) (*unstructured.Unstructured, error) {
			rebased, err := rb.Rebased(desired.Unstructured, live.Unstructured)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", escape.Text(r.ID.String()), err)
			}
			return rebased, nil
		}
		rebased, err := applied(inForce)
		if err != nil {
			return nil, err
		}
		if key := verify.AppliesNothing(rebased.Object); key != "" { // whatever the built-in rules do: kapp applies none of the changes
			h := Hidden{Resource: r.ID, How: inertHow(key)}
			p := fielddiff.ByKey(rebased, fielddiff.FromFields([]string{"metadata", "annotations", key}))
			if v, ok := p.Get(desired.Object); ok && (key != kappconv.UpdateStrategy || v == "skip") {
				src := r.Desired.Source
				h.Rule, h.At = fmt.Sprintf("the annotation %s the manifest declares (%s)", p, src), RuleAt{File: src.File, Doc: src.Doc, Line: src.Line}
			} else {
				h.Rule, h.At = blame.responsible(r, p, rebased.Object)
				h.Rule = "the annotation " + p.String() + " written onto the object kapp applies by " + h.Rule
			}
			for _, f := range changes {
				h.Path = f.Path.String()
				out = append(out, h)
			}
			continue
		}
		rebasedAlone, err := applied(builtin)
		if err != nil {
			return nil, err
		}
		if obj, ok := templated[r.ID.String()]; ok {
			if objAlone, ok := templatedAlone[r.ID.String()]; ok {
				rebased, rebasedAlone = &unstructured.Unstructured{Object: obj}, &unstructured.Unstructured{Object: objAlone}
			}
		}
		// the manifest as kapp prepares it: a value the Configs' mods write (additionalLabels) is
		// declared as much as the manifest's own
		prepared, err := inForce.Prepared(desired.Unstructured, live.Unstructured)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", escape.Text(r.ID.String()), err)
		}
		// compared as the API server stores them: a Secret's stringData key the rules fold into
		// data, where the live data holds the same value, stores the same Secret (newcomer
		// walkthrough 6, N6-1: a new key beside it was a change hidden by the fold)
		withRules, alone := fielddiff.NewLookup(fielddiff.FoldStringData(rebased).Object), fielddiff.NewLookup(fielddiff.FoldStringData(rebasedAlone).Object)
		git := fielddiff.NewLookup(fielddiff.FoldStringData(prepared).Object)
		blamed := blame.resource(r, prepared.Object)
		for _, f := range changes {
			// by the manifest's keys (a port declared without protocol), and only what it
			// declares: a rule filling in a field of the item the manifest leaves out (a node port
			// copied from the cluster) rewrites nothing of the change
			want, declared := git.GetDeclared(f.Path)
			same := func(l *fielddiff.Lookup) bool {
				v, ok := l.GetDeclared(f.Path)
				return ok == declared && (!ok || fielddiff.Holds(v, want))
			}
			if same(alone) && !same(withRules) {
				h := Hidden{Resource: r.ID, Path: f.Path.String(), Rewritten: true, Removed: !declared}
				if f.Class == classify.Controller || f.Class == classify.Pending && f.Owner != "" { // a controller rewrote what kapp applied
					h.Owner = cmp.Or(f.Owner, "another manager")
				}
				if !declared {
					h.How = rewrittenRemovedHow
					if both := twoHandlers(r.ID, f.Path, withRules); both != "" {
						h.How, h.Refused = both, true
					}
				}
				h.Rule, h.At = blamed.responsible(f.Path, hiders(f.Path, want))
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// rewrittenRemovedHow is what kapp does with a removal made in Git whose field the object kapp
// applies holds under the rules.
const rewrittenRemovedHow = "the object kapp applies holds the field the manifest no longer declares: kapp never removes it"

// changedInGit are the fields of r the manifest may have changed since kapp last applied them:
// the pending ones, drift whose live value is not what kapp applied either (the live object
// drifted too), and a declared value of any other class (a field another manager owns, one the
// server rewrote) that differs from what kapp last applied: the exemption of a field a controller
// owns holds for the value kapp applied, not for a new value from Git, which a rule copying the
// controller's value keeps from ever being applied (probe7 D4). Without kapp.k14s.io/original
// (a first deploy, an object kapp takes over) every declared value that is drift, which a change
// made in Git cannot be told from, and every field the manifest no longer declares that the
// applier applied (classify.Finding.AppliedBefore), which a removal made in Git cannot be told
// from. kapp records in kapp.k14s.io/original the manifest it applied, before its rebase rules
// (diff/change_factory.go: the applied resource is the historyless new one), so a rule copying a
// live value never makes the original differ from an unchanged manifest.
func changedInGit(r classify.Resource) []classify.Finding {
	var out []classify.Finding
	sent, read := (*fielddiff.Lookup)(nil), false
	var git *fielddiff.Lookup
	for _, f := range r.Findings {
		switch {
		case f.Class == classify.Pending, f.AppliedBefore:
			out = append(out, f)
		case f.Class == classify.Drift:
			if !read {
				sent, read = lastApplied(r), true
			}
			if sent == nil {
				if f.Change != fielddiff.Added {
					out = append(out, f)
				}
				continue
			}
			v, ok := sent.Get(f.Path)
			if ok != (f.Change != fielddiff.Added) || ok && !fielddiff.Equal(v, f.Desired) {
				out = append(out, f)
			}
		case f.Change == fielddiff.Modified || f.Change == fielddiff.Removed:
			if !read {
				sent, read = lastApplied(r), true
			}
			if sent == nil {
				continue // nothing tells a change made in Git from the value kapp applied
			}
			if git == nil {
				desired, err := r.Desired.Object()
				if err != nil {
					continue
				}
				git = fielddiff.NewLookup(desired.Object) // f.Desired is masked for a Secret
			}
			want, declared := git.GetDeclared(f.Path)
			// a declared null where kapp's last apply held none is no change: the API server
			// stores null as absent (kubectl's --dry-run output declares creationTimestamp: null)
			if v, ok := sent.GetDeclared(f.Path); declared && (ok && !fielddiff.Equal(v, want) || !ok && want != nil) {
				out = append(out, f)
			}
		}
	}
	return out
}

// lastApplied is what kapp last applied of r (its kapp.k14s.io/original annotation); nil when
// there is none.
func lastApplied(r classify.Resource) *fielddiff.Lookup {
	live, err := r.Live.Object()
	if err != nil {
		return nil
	}
	raw, ok := live.GetAnnotations()[kappconv.Original]
	var m map[string]any
	if !ok || json.Unmarshal([]byte(raw), &m) != nil || m == nil {
		return nil
	}
	return fielddiff.NewLookup(m)
}

// appliedWithTemplates returns, where a Config in force holds templateRules, the object kapp's
// change applies to each resource when it diffs against the live object (verify.Rebased), with
// the Configs in force and with kapp's built-in rules alone, by resource: kapp's template rules
// write a versioned resource's name into each reference at their paths that names its base name
// (diff/versioned_resource.go), with every versioned resource of the deploy in view, which
// kappcover's rebase of one resource does not apply (probe6 finding 9: a rule whose reference is
// a container, nameKey image, rewrote the image Git declares into the name of a versioned
// ConfigMap). Both nil where no Config holds templateRules: kapp's built-in ones rewrite only
// references, which no change made in Git loses.
func appliedWithTemplates(in Input) (withRules, alone map[string]map[string]any, err error) {
	if !slices.ContainsFunc(in.Rules, func(r Rule) bool { return strings.HasPrefix(r.At.Key, "templateRules") }) {
		return nil, nil, nil
	}
	rs := in.Report.Resources
	applied := func(configs []*unstructured.Unstructured) (map[string]map[string]any, error) {
		out := map[string]map[string]any{}
		var mu sync.Mutex
		err := verify.Rebased(len(rs), func(i int) (verify.Pair, error) {
			desired, live, err := rs[i].Objects()
			if err != nil {
				return verify.Pair{}, err
			}
			return pairOf(desired, live), nil
		}, configs, func(i int, b verify.Base, obj map[string]any, err error) {
			if err != nil || obj == nil || b != verify.Live {
				return // kapp's engine reports a failing pair on the verification
			}
			decoded := asDecoded(obj)
			mu.Lock()
			out[rs[i].ID.String()] = decoded
			mu.Unlock()
		})
		return out, err
	}
	if withRules, err = applied(unstructuredOf(in.Configs)); err != nil {
		return nil, nil, err
	}
	if alone, err = applied(nil); err != nil {
		return nil, nil, err
	}
	return withRules, alone, nil
}

// twoHandlers says, where the manifest switched a handler (a webhook's clientConfig from a
// service to a url) and the object kapp applies holds the one removed beside the one declared
// now, that the API server refuses it: kapp's deploy fails rather than applying the switch
// (newcomer4 finding 9); where the object kapp applies holds a handler beside a type that names
// another (a Deployment's strategy.rollingUpdate beside type: Recreate, which the manifest declares
// now), that the API server refuses that too (probe13 P13-1); "" otherwise.
func twoHandlers(id pair.Identity, p fielddiff.Path, applied *fielddiff.Lookup) string {
	if parent, s, ok := classify.Switched(p); ok && len(p) == len(parent)+1 && *p[len(parent)].FieldName == s.Handler {
		by := append(slices.Clone(parent), fieldpath.PathElement{FieldName: &s.By})
		if v, ok := applied.Get(by); ok && v != s.Value && s.RefusedBy(id.Group, id.Kind) {
			return fmt.Sprintf("the object kapp applies holds %s beside %s %s, which the manifest declares now: the API server refuses %s's %s beside any %s but %s, so kapp's deploy fails",
				s.Handler, s.By, escape.Text(fmt.Sprint(v)), words.A(id.Kind), s.Handler, s.By, s.Value)
		}
		return ""
	}
	parent, others, ok := classify.Handlers(p)
	if !ok || len(p) != len(parent)+1 {
		return ""
	}
	for _, o := range others {
		if _, holds := applied.Get(append(slices.Clone(parent), fieldpath.PathElement{FieldName: &o})); holds {
			return fmt.Sprintf("the object kapp applies holds %s beside %s, which the manifest declares now: the API server refuses both in one %s, so kapp's deploy fails",
				*p[len(p)-1].FieldName, o, *parent[len(parent)-1].FieldName)
		}
	}
	return ""
}
