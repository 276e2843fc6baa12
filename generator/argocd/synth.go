package argocd

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	gdiff "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// Left is a field Argo CD shows as differing that the ignores do not rule, and why.
type Left struct {
	Resource pair.Identity
	Path     string // by key, as explain names fields
	Class    string // its class's label; "" when nothing explains it
	Reason   string
	// Kind is check's kind of finding for it: its class's (drift, pending, adoption), unknown
	// when nothing explains it, residual for a ghost no ignore may take.
	Kind verdict.Kind
	// Hidden: Argo CD does not show it under the ignores Synthesize was given (check's).
	Hidden bool
}

// Result is what Synthesize makes of a classification.
type Result struct {
	Ignores []Ignore
	Left    []Left // differences Argo CD still shows, with the reason each is not ignored
	// Ghost are the resources Argo CD shows as OutOfSync for ghost differences only: the
	// generated ignores must make each of them in sync.
	Ghost []pair.Identity
}

// Synthesize writes the narrowest ignores for the differences Argo CD's own comparison shows:
// it diffs each pair as Argo CD does, and each field its result shows is ignored when
// classification explains it as a ghost (defaulted, calculated, admission, a controller's) and an
// ignore cannot hide a change made in Git there (the manifest does not declare the field, or a
// controller owns it, with evidence). What Argo CD normalises itself (its scheme defaulting,
// fields the manifest does not declare, status, its tracking annotation) never shows, so it is
// never ruled. One entry per resource (group, kind, namespace, name): the evidence is per
// resource. Paths through list items with merge keys are jq expressions selecting the item by
// its keys (an item's index moves when items are added or reordered); other paths are JSON
// pointers; a path through an item of a list without keys is not ruled. Argo CD compares under
// base's compare options (argocd-cm's resource.compareoptions); base's ignores decide only which
// of the differences left Argo CD still shows (Left's Hidden).
func Synthesize(rep *classify.Report, base Settings) (Result, error) {
	base, err := base.withSchemas(rep)
	if err != nil {
		return Result{}, err
	}
	s := base.Plain()
	var out Result
	for _, r := range rep.Resources {
		desired, live, err := r.Objects()
		if err != nil {
			return Result{}, err
		}
		res, err := Diff(desired.Unstructured, live.Unstructured, s)
		if err != nil {
			return Result{}, err
		}
		if !res.Modified {
			continue
		}
		shown, err := shownPaths(res)
		if err != nil {
			return Result{}, err
		}
		under := map[string]bool{} // the fields Argo CD shows under base's ignores
		if len(base.Ignores)+len(base.Overrides) > 0 {
			res, err := Diff(desired.Unstructured, live.Unstructured, base)
			if err != nil {
				return Result{}, err
			}
			paths, err := shownPaths(res)
			if err != nil {
				return Result{}, err
			}
			for _, p := range paths {
				under[p.String()] = true
			}
		} else {
			for _, p := range shown {
				under[p.String()] = true
			}
		}
		var pointers, jq []string
		ghost, first := true, len(out.Left)
		var at []fielddiff.Path // the paths of out.Left[first:]
		for _, p := range shown {
			if added := addedItem(desired.Unstructured, live.Unstructured, p); added != "" && lastSynced(live.Unstructured, p) == "" {
				// whatever finding lies nearest (a default in another item), an item added in
				// Git is no ghost: a sync applies it (newcomer6 N6-8)
				ghost = false
				out.Left = append(out.Left, Left{Resource: r.ID, Path: p.String(), Class: string(classify.Pending), Kind: verdict.KindPending,
					Reason: added + ": an item added in Git, which a sync applies", Hidden: !under[p.String()]})
				at = append(at, p)
				continue
			}
			reason, ptr, expr := rule(r, desired.Unstructured, p)
			switch {
			case reason != "":
				ghost = false
				l := Left{Resource: r.ID, Path: p.String(), Reason: reason, Kind: verdict.KindUnknown, Hidden: !under[p.String()]}
				blocks := false // the API server refuses the update (classify's evidence says why)
				if f, ok := explaining(r, p); ok {
					l.Class, l.Kind = f.Label(), kindOf(f.Class)
					blocks = f.Blocks && f.Path.String() == p.String()
					if f.Class == classify.Pending && f.Path.String() == p.String() {
						// judged against Argo CD's last sync (classify reads its
						// last-applied-configuration as kapp's original): the evidence says why
						l.Reason = f.Evidence
					}
				}
				_, declared := p.GetDeclared(desired.Object)
				why := lastSynced(live.Unstructured, p)
				moved := ""
				if why == "" && (l.Kind == verdict.KindDrift || l.Kind == verdict.KindUnknown) {
					moved = movedItem(desired.Unstructured, live.Unstructured, p) // newcomer5 F3
				}
				switch {
				case moved != "":
					l.Class, l.Kind, l.Reason = string(classify.Pending), verdict.KindPending, moved+": a merge key changed in Git, which a sync applies"
				case why == "":
				case l.Kind == verdict.KindDrift || l.Kind == verdict.KindPending && declared:
					l.Class, l.Kind, l.Reason = string(classify.Pending), verdict.KindPending, why+": a change made in Git, which a sync applies"
				case (l.Kind == verdict.KindUnknown || l.Kind == verdict.KindAdoption || l.Kind == verdict.KindPending) && !declared: // newcomer3 finding 3(c); probe7 minor: kapp's adoption is no class of Argo CD's
					l.Class, l.Kind, l.Reason = string(classify.Pending), verdict.KindPending, why+", and the manifest no longer declares it: a removal made in Git, which a sync applies"
				}
				if blocks && (l.Kind == verdict.KindPending || l.Kind == verdict.KindDrift) {
					if without, why := refusal(desired.Unstructured, live.Unstructured, l.Reason); why != "" {
						l.Kind, l.Reason = verdict.KindImmutable, without+why
					}
				}
				out.Left = append(out.Left, l)
				at = append(at, p)
			case ptr != "":
				pointers = append(pointers, ptr)
			default:
				jq = append(jq, expr)
			}
		}
		pendingWhole(live.Unstructured, out.Left[first:], at)
		if ghost {
			out.Ghost = append(out.Ghost, r.ID)
		}
		if len(pointers)+len(jq) == 0 {
			continue
		}
		slices.Sort(pointers)
		slices.Sort(jq)
		out.Ignores = append(out.Ignores, Ignore{Group: r.ID.Group, Kind: r.ID.Kind, Namespace: r.ID.Namespace, Name: r.ID.Name,
			JSONPointers: slices.Compact(pointers), JQPathExpressions: slices.Compact(jq)})
	}
	slices.SortFunc(out.Ignores, func(a, b Ignore) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// fix is what to change in the manifest so that Argo CD stops showing a ghost f it declares,
// where the server's value says it: a field the server removes is dropped, a value it stores in
// another form is written in that form; "" when it does not.
func fix(f classify.Finding) string {
	switch f.Live.(type) {
	case map[string]any, []any:
		return "" // a whole value: no short fix to name
	}
	switch {
	case f.Change == fielddiff.Removed:
		return "; fix: drop " + f.Path.String() + " from the manifest, which the server removes"
	case f.Change == fielddiff.Canonical:
		if js, err := json.Marshal(f.Live); err == nil {
			return "; fix: write it in the manifest as the server stores it, " + string(js)
		}
	}
	return ""
}

// kindOf is check's kind of finding for a difference of class c no ignore takes.
func kindOf(c classify.Class) verdict.Kind {
	switch c {
	case classify.Unknown:
		return verdict.KindUnknown
	case classify.Drift:
		return verdict.KindDrift
	case classify.Pending:
		return verdict.KindPending
	case classify.Adoption:
		return verdict.KindAdoption
	}
	return verdict.KindResidual
}

// rule returns the ignore for the field at p (by key) that Argo CD shows: a JSON pointer or a jq
// path expression, or the reason it is not ignored.
func rule(r classify.Resource, desired *unstructured.Unstructured, p fielddiff.Path) (reason, pointer, jq string) {
	f, ok := explaining(r, p)
	if !ok {
		return "nothing rebasegen classified explains it", "", ""
	}
	if !f.Class.Ghost() {
		return "class " + f.Label() + " (never ignored)", "", ""
	}
	if _, declared := f.Path.GetDeclared(desired.Object); declared && !verdict.Controlled(r, desired.Object, f.Path) {
		return "class " + f.Label() + ", but the manifest declares the field: an ignore would hide every change made to it in Git" + fix(f), "", ""
	}
	at := f.Path
	if f.Whole != nil { // a value its owner holds whole (an atomic list): an item of it has no key
		at = f.Whole
	}
	if stable(at) {
		return "", pointerOf(at), ""
	}
	expr, ok := jqOf(at, desired.Object)
	if !ok {
		return "class " + f.Label() + ", but the field is in a list item without merge keys: its index moves when items do", "", ""
	}
	return "", "", expr
}

// explaining is the finding at p, or the nearest one above or below it.
func explaining(r classify.Resource, p fielddiff.Path) (classify.Finding, bool) {
	var best classify.Finding
	found := false
	for _, f := range r.Findings {
		switch {
		case reflect.DeepEqual(f.Path, p):
			return f, true
		case p.HasPrefix(f.Path) || f.Path.HasPrefix(p):
			if !found || len(f.Path) > len(best.Path) {
				best, found = f, true
			}
		}
	}
	return best, found
}

// stable reports whether p selects no list item: its JSON pointer names the field whatever lists hold.
func stable(p fielddiff.Path) bool {
	_, ok := p.Fields()
	return ok
}

// pointerOf is the JSON pointer (RFC 6901) of a path of map keys.
func pointerOf(p fielddiff.Path) string {
	fields, _ := p.Fields()
	var b strings.Builder
	for _, f := range fields {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(f))
	}
	return b.String()
}

// jqOf is the jq path expression of p selecting list items by their merge keys:
// .spec.template.spec.containers[] | select(.name == "web") | .imagePullPolicy. False when p
// selects an item by index or by value. An item desired declares is selected by the key fields
// it declares: Argo CD runs the expression on the manifest as written, where a key field left to
// its default (a port's protocol) is absent, so selecting by it would match the live item only.
func jqOf(p fielddiff.Path, desired map[string]any) (string, bool) {
	var b strings.Builder
	for i, pe := range p {
		switch {
		case pe.FieldName != nil:
			b.WriteString(jqField(*pe.FieldName))
		case pe.Key != nil:
			item, _ := p[:i+1].GetDeclared(desired)
			declared, _ := item.(map[string]any)
			if !slices.ContainsFunc(*pe.Key, func(f value.Field) bool { _, ok := declared[f.Name]; return ok }) {
				declared = nil // an item only the live object holds, or one declaring no key field
			}
			conds := make([]string, 0, len(*pe.Key))
			for _, f := range *pe.Key {
				if _, ok := declared[f.Name]; declared != nil && !ok {
					continue
				}
				v, err := json.Marshal(f.Value.Unstructured())
				if err != nil {
					return "", false
				}
				conds = append(conds, jqField(f.Name)+" == "+string(v))
			}
			b.WriteString("[] | select(" + strings.Join(conds, " and ") + ") | ")
		default:
			return "", false
		}
	}
	s := strings.TrimSuffix(b.String(), " | ")
	if strings.HasPrefix(s, "[]") {
		s = "." + s
	}
	return strings.ReplaceAll(s, "| [", "| .["), true
}

// jqField is the jq path step for a map key: .name, or .["a/b"] for keys jq's identifiers do not
// cover.
func jqField(name string) string {
	ident := name != ""
	for i, c := range name {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			ident = false
		}
	}
	if ident {
		return "." + name
	}
	quoted, _ := json.Marshal(name) // jq's string literals are JSON's (Go's quoting has \x escapes)
	return ".[" + string(quoted) + "]"
}

// shownPaths are the fields whose values differ between what Argo CD predicts the live object
// becomes after a sync and the live object, both as Argo CD normalised them, by key.
func shownPaths(res *gdiff.DiffResult) ([]fielddiff.Path, error) {
	predicted, live, err := objects(res)
	if err != nil {
		return nil, fmt.Errorf("argo cd diff result: %w", err)
	}
	var byIndex []fielddiff.Path
	differing(predicted, live, nil, &byIndex)
	u := &unstructured.Unstructured{Object: predicted}
	out := make([]fielddiff.Path, len(byIndex))
	for i, p := range byIndex {
		out[i] = fielddiff.ByKey(u, p)
	}
	return out, nil
}

// differing walks two decoded JSON values and returns the paths (by index) where they differ: a
// map key on one side only, a scalar or list length that differs.
func differing(a, b any, at fielddiff.Path, out *[]fielddiff.Path) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			differing(am[k], bm[k], with(at, fieldpath.PathElement{FieldName: &k}), out)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			differing(al[i], bl[i], with(at, fieldpath.PathElement{Index: &i}), out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, at)
	}
}

func with(p fielddiff.Path, pe fieldpath.PathElement) fielddiff.Path {
	return append(append(fielddiff.Path{}, p...), pe)
}

// pendingWhole makes pending the ghosts of left (one resource's) inside a value Argo CD's Apply
// entry owns whole (an atomic list) where Git changed another field of that value: the sync sends
// the whole value and the server defaults its items again, so they are part of that change, as
// the kapp target reports them (newcomer9 N9-3).
func pendingWhole(live *unstructured.Unstructured, left []Left, at []fielddiff.Path) {
	for i := range left {
		if left[i].Kind != verdict.KindResidual {
			continue
		}
		q, ok := appliedWhole(live, at[i])
		if !ok {
			continue
		}
		for j, o := range left {
			if o.Kind == verdict.KindPending && at[j].HasPrefix(q) {
				left[i].Class, left[i].Kind = string(classify.Pending), verdict.KindPending
				left[i].Reason = "in " + q.String() + ", which " + argoManager + "'s Apply entry of managedFields owns whole and Git changed at " + o.Path + ": a sync sends the whole value and the server sets this field again"
				break
			}
		}
	}
}
