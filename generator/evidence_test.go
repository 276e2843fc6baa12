package generator_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator"
)

// No explanation contradicts its resource's header or the live object's managedFields (issue 25):
// where the evidence names the applier, it is the one the header names; "no managedFields entry
// owns it" is said only of a field no entry owns. Ownership is read here from managedFields with
// structured-merge-diff's own set semantics: an entry owns a field when it records it or a field
// below it, or records an ancestor below which no entry records anything (an atomic value).
func TestEvidenceAgreesWithHeaderAndManagedFields(t *testing.T) {
	names := regexp.MustCompile(`admission of (\S+)'s write|during (\S+)'s create|owned by ([^,(]+), which applied the manifest \(`)
	checked := 0
	for _, s := range scenarios(t) {
		t.Run(s.Name, func(t *testing.T) {
			rep, _, err := generator.Explain(inputs(s))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Resources {
				var sets []*fieldpath.Set
				for _, o := range s.Objects {
					if o.Live == nil || o.Live.GetKind() != r.ID.Kind || o.Live.GetName() != r.ID.Name || o.Live.GetNamespace() != r.ID.Namespace {
						continue
					}
					for _, e := range o.Live.GetManagedFields() {
						set := fieldpath.NewSet()
						if e.FieldsV1 != nil {
							if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
								t.Fatal(err)
							}
						}
						sets = append(sets, set)
					}
				}
				for _, f := range r.Findings {
					for _, m := range names.FindAllStringSubmatch(f.Evidence, -1) {
						checked++
						if name := strings.Join(m[1:], ""); name != r.Applier {
							t.Errorf("%s %s: evidence names %s as the applier, the header %q: %s", r.ID, f.Path, name, r.Applier, f.Evidence)
						}
					}
					if strings.Contains(f.Evidence, "no managedFields entry owns it") {
						checked++
						if ownedIn(sets, fieldpath.Path(f.Path)) {
							t.Errorf("%s %s: evidence says no entry owns it, but one does: %s", r.ID, f.Path, f.Evidence)
						}
					}
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no evidence naming an applier or ownership was checked")
	}
}

func ownedIn(sets []*fieldpath.Set, p fieldpath.Path) bool {
	below := func(q fieldpath.Path) bool { // some entry records a field strictly below q
		for _, s := range sets {
			found := false
			s.Iterate(func(x fieldpath.Path) {
				found = found || len(x) > len(q) && x[:len(q)].Equals(q)
			})
			if found {
				return true
			}
		}
		return false
	}
	for _, s := range sets {
		if s.Has(p) {
			return true
		}
	}
	if below(p) {
		return true
	}
	for n := len(p) - 1; n > 0; n-- {
		q := p[:n]
		for _, s := range sets {
			if s.Has(q) && !below(q) {
				return true
			}
		}
	}
	return false
}
