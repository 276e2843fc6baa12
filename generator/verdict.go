package generator

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verify"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// Verdict is kapp's engine on every paired resource under a set of rules: nothing is counted as
// success that kapp was not asked about.
type Verdict struct {
	Paired  int      // paired resources, all of them verified
	Kept    int      // resources kapp keeps under both bases
	Updates []Update // resources kapp still updates, with why
}

// Update is one resource kapp still updates.
type Update struct {
	Resource pair.Identity
	// Fields are the differences no rule is meant to remove (drift, unknown not accepted): why
	// kapp updates the resource. Empty when only ghost diffs were left.
	Fields []classify.Finding
	// Ghost: kapp updates the resource for a difference the rules should have removed (a
	// rebasegen bug, or a hand-written rule short of what is needed); Diff is kapp's.
	Ghost bool
	Diff  string
}

func (u Update) String() string { return u.Resource.String() + ": " + u.Diff }

// Count returns how many updated resources have a field of the class.
func (v Verdict) Count(c classify.Class) int {
	n := 0
	for _, u := range v.Updates {
		for _, f := range u.Fields {
			if f.Class == c {
				n++
				break
			}
		}
	}
	return n
}

// Ghosts returns the updates left by ghost diffs.
func (v Verdict) Ghosts() []Update {
	var out []Update
	for _, u := range v.Updates {
		if u.Ghost {
			out = append(out, u)
		}
	}
	return out
}

// Summary counts the resources kapp keeps and updates.
func (v Verdict) Summary() string {
	s := fmt.Sprintf("kapp keeps %d/%d paired resources under both bases", v.Kept, v.Paired)
	if len(v.Updates) == 0 {
		return s
	}
	var why []string
	for _, c := range []classify.Class{classify.Drift, classify.Unknown, classify.Adoption} {
		if n := v.Count(c); n > 0 {
			why = append(why, fmt.Sprintf("%d with %s", n, c))
		}
	}
	if n := v.Count(classify.Pending); n > 0 {
		why = append(why, fmt.Sprintf("%d with changes made in Git", n))
	}
	if n := len(v.Ghosts()); n > 0 {
		why = append(why, fmt.Sprintf("%d with ghost diffs left", n))
	}
	return s + fmt.Sprintf(" and updates %d (%s)", len(v.Updates), strings.Join(why, ", "))
}

// verdictOf asks kapp's engine about every pair with configs. A field is a reason for an update
// when it is not ruled (classify.Finding.Ruled). A pair
// kapp updates that has such fields is asked about again with those fields set to their live
// values: kapp must then keep it, else ghost diffs are left as well.
// It also returns the pairs, kapp's results on them and what kapp's engine cost.
func verdictOf(rep *classify.Report, configs []*unstructured.Unstructured, includeUnknown bool, progress Progress) (Verdict, []pair.Pair, []verify.Result, verify.Cost, error) {
	v := Verdict{Paired: len(rep.Resources)}
	pairs := make([]pair.Pair, len(rep.Resources))
	for i, r := range rep.Resources {
		pairs[i] = r.Pair
	}
	results, cost, err := verifyPairs(pairs, configs, progress)
	if err != nil {
		return v, nil, nil, cost, err
	}
	var again []int // resources to verify with their reasons neutralised
	for i, res := range results {
		if kept(res) {
			v.Kept++
			continue
		}
		r := rep.Resources[i]
		u := Update{Resource: r.ID}
		for _, f := range r.Findings {
			if !f.Ruled(includeUnknown) {
				u.Fields = append(u.Fields, f)
			}
		}
		switch {
		case len(u.Fields) == 0:
			u.Ghost, u.Diff = true, kappDiff(res)
		case kappLabelled(r):
			again = append(again, len(v.Updates))
		}
		// else kapp takes the object over (adoption): its first deploy adds kapp's labels
		// whatever the rules do, so only the fields listed can be judged.
		v.Updates = append(v.Updates, u)
	}
	if len(again) == 0 {
		return v, pairs, results, cost, nil
	}
	byID := map[pair.Identity]classify.Resource{}
	for _, r := range rep.Resources {
		byID[r.ID] = r
	}
	neutralised, err := verify.VerifyEach(len(again), func(i int) (verify.Pair, error) {
		u := v.Updates[again[i]]
		desired, live, err := byID[u.Resource].Objects()
		if err != nil {
			return verify.Pair{}, err
		}
		for _, f := range u.Fields {
			if f.Class == classify.Adoption {
				afterAdoption(live.Object, f) // as kapp's first deploy leaves the object
				continue
			}
			neutralise(desired.Object, live.Object, f.Path)
		}
		return verify.Pair{Desired: desired.Unstructured, Live: live.Unstructured}, nil
	}, configs, nil)
	if err != nil {
		return v, nil, nil, cost, err
	}
	for i, res := range neutralised {
		if !kept(res) {
			u := &v.Updates[again[i]]
			u.Ghost, u.Diff = true, kappDiff(res)
		}
	}
	return v, pairs, results, cost, nil
}

func kept(res verify.Result) bool {
	return res.Op[verify.LastApplied] == verify.OpKeep && res.Op[verify.Live] == verify.OpKeep
}

func kappDiff(res verify.Result) string {
	for _, b := range verify.Bases() {
		if res.Op[b] != verify.OpKeep {
			return fmt.Sprintf("kapp reports %s under the %s base:\n%s", res.Op[b], b, res.Diff[b])
		}
	}
	return ""
}

// neutralise gives the desired object the live value at path, or drops the field when the live
// object has none. Where the path cannot be set (a list item the desired object lacks), the
// nearest enclosing value that can is taken from the live object whole.
func neutralise(desired, live map[string]any, path fielddiff.Path) {
	for k := len(path); k > 0; k-- {
		p := path[:k]
		if v, ok := p.Get(live); ok {
			if p.Set(desired, v) {
				return
			}
			continue
		}
		if name := p[k-1].FieldName; name != nil {
			parent := any(desired)
			if k > 1 {
				parent, _ = p[:k-1].Get(desired)
			}
			if m, ok := parent.(map[string]any); ok {
				delete(m, *name)
				return
			}
		}
	}
}

// kappLabelled reports whether kapp already labelled the live object as one of its app's.
func kappLabelled(r classify.Resource) bool {
	_, live, err := r.Objects()
	return err == nil && live.GetLabels()[kappconv.AppLabel] != ""
}
