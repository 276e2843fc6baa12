package compare

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// kappKeys are the differences in kapp's own labels and annotations (kapp.k14s.io/...), which the
// classifier leaves out: right for kapp's diff of its own deploy, which rewrites them, but the
// write judged here may be any controller's, and an update omitting them removes them (newcomer
// walkthrough 6, N6-6: an update dropping kapp's labels was NoChange). Each is credited to the
// managers that own it in live's managedFields, "kapp" when none does; paths the classifier
// already judges (an association label kapp rewrites) are left to it.
func kappKeys(res classify.Resource, desired, live *unstructured.Unstructured) []classify.Finding {
	judged := map[string]bool{}
	for _, f := range res.Findings {
		judged[f.Path.String()] = true
	}
	var out []classify.Finding
	add := func(p fielddiff.Path, change fielddiff.Change, d, l any) {
		if judged[p.String()] {
			return
		}
		judged[p.String()] = true
		owner := strings.Join(owners(live, p), ", ")
		out = append(out, classify.Finding{Path: p, Change: change, Desired: d, Live: l, Class: classify.Controller, Owner: cmp.Or(owner, "kapp"),
			Evidence: "kapp's own label or annotation (kapp.k14s.io/), which kapp writes on its deploys"})
	}
	for _, p := range fielddiff.KappKeys(live) {
		l, _ := p.Get(live.Object)
		switch d, ok := p.Get(desired.Object); {
		case !ok:
			add(p, fielddiff.Added, nil, l)
		case !fielddiff.Equal(d, l):
			add(p, fielddiff.Modified, d, l)
		}
	}
	for _, p := range fielddiff.KappKeys(desired) {
		if _, ok := p.Get(live.Object); !ok {
			d, _ := p.Get(desired.Object)
			add(p, fielddiff.Removed, d, nil)
		}
	}
	return out
}

// owners are the managers whose managedFields entries own p, sorted.
func owners(live *unstructured.Unstructured, p fielddiff.Path) []string {
	var out []string
	for _, e := range live.GetManagedFields() {
		if e.FieldsV1 == nil || slices.Contains(out, e.Manager) {
			continue
		}
		s := fieldpath.NewSet()
		if s.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))) == nil && s.Has(fieldpath.Path(p)) {
			out = append(out, e.Manager)
		}
	}
	slices.Sort(out)
	return out
}
