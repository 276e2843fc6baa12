package classify

import (
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/internal/kappconv"
	"github.com/rebasegen/rebasegen/rulesets"
)

// The fields a manifest declares are worked out only to weigh a manager that is neither a known
// applier nor a person (performance: converting every manifest for them was a twentieth of
// classification, and most resources have no such manager). The applier found is the same.
func TestDeclaredFieldsAskedOnlyForAnUnknownManager(t *testing.T) {
	rs, err := rulesets.Load()
	if err != nil {
		t.Fatal(err)
	}
	set := func(ps ...fieldpath.Path) *fieldpath.Set { return fieldpath.NewSet(ps...) }
	replicas, image := fieldpath.MakePathOrDie("spec", "replicas"), fieldpath.MakePathOrDie("spec", "image")
	declared := set(replicas, image)
	for _, c := range []struct {
		name       string
		owners     []owner
		want       string
		wantAsked  int
		wantWeighs bool // the unknown manager is an applier
	}{
		{"kapp and a controller", []owner{
			{Manager: "kapp", Operation: "Update", fields: set(replicas, image)},
			{Manager: "kube-controller-manager", Operation: "Update", Subresource: "status", fields: set(replicas)},
		}, "kapp", 0, false},
		{"an unknown manager owning what the manifest declares", []owner{
			{Manager: "kapp", Operation: "Update", fields: set(image)},
			{Manager: "some-installer", Operation: "Update", fields: set(replicas, image)},
		}, "kapp", 1, true},
	} {
		asked := 0
		a := findAppliers(c.owners, rs, applierObject{annotations: map[string]string{kappconv.Original: "{}"},
			declared: func() *fieldpath.Set { asked++; return declared }})
		if a.main != c.want || asked != c.wantAsked || a.has("some-installer") != c.wantWeighs {
			t.Errorf("%s: applier %q, declared fields asked %d times, some-installer an applier %t; want %q, %d, %t",
				c.name, a.main, asked, a.has("some-installer"), c.want, c.wantAsked, c.wantWeighs)
		}
	}
}
