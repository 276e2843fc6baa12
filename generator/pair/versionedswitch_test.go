package pair

import (
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// TestVersionedSwitchPairsAsKapp: kapp.k14s.io/versioned added or removed in Git pairs nothing:
// kapp's own change set (diff.NewChangeSetWithVersionedRs, the oracle) adds web-ver-1 and deletes
// web when it is added, and adds web and deletes every version when it is removed. Old code:
// added, web paired with web (an update, no delete: --fail-on-delete passed); removed, web paired
// with web-ver-1 and verify stopped on "not the same resource" (probe21 P21-1).
func TestVersionedSwitchPairsAsKapp(t *testing.T) {
	const app = "kapp.k14s.io/app: \"1\"\n"
	live := func(name, ann string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: ns\n  labels:\n    " + app +
			"  annotations:\n    " + kappconv.IdentityAnnotation + ": v1;ns//ConfigMap/" + name + ";v1\n" + ann + "data: {a: \"1\"}\n"
	}
	const versioned = "    kapp.k14s.io/versioned: \"\"\n"
	for _, c := range []struct{ name, desired, live, created, deleted string }{
		{"added", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: ns, annotations: {kapp.k14s.io/versioned: \"\"}}\ndata: {a: \"2\"}\n",
			live("web", ""), "web", "web"},
		{"removed", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: ns}\ndata: {a: \"2\"}\n",
			live("web-ver-1", versioned) + "---\n" + live("web-ver-2", versioned), "web", "web-ver-1 web-ver-2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var adds, deletes []string
			kappRs := func(s string) []ctlres.Resource { // kapp reads one document at a time
				var out []ctlres.Resource
				for _, doc := range strings.Split(s, "---\n") {
					rs, err := ctlres.NewResourcesFromBytes([]byte(doc))
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, rs...)
				}
				return out
			}
			cf := ctldiff.NewChangeFactory(nil, nil, nil, ctldiff.ChangeOpts{})
			chs, err := ctldiff.NewChangeSetWithVersionedRs(kappRs(c.live), kappRs(c.desired), nil, ctldiff.ChangeSetOpts{}, cf).Calculate()
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range chs {
				switch ch.Op() {
				case ctldiff.ChangeOpAdd:
					adds = append(adds, ch.NewResource().Name())
				case ctldiff.ChangeOpDelete:
					deletes = append(deletes, ch.ExistingResource().Name())
				default:
					t.Fatalf("kapp: %s %s, want only adds and deletes", ch.Op(), ch.ExistingResource().Name())
				}
			}
			slices.Sort(deletes)
			set, err := build(t, c.desired, c.live)
			if err != nil {
				t.Fatal(err)
			}
			var created, deleted []string
			for _, d := range set.Created {
				created = append(created, d.Name)
			}
			for _, d := range set.Deleted {
				deleted = append(deleted, d.Name)
			}
			slices.Sort(deleted)
			if len(set.Pairs) != 0 || len(adds) != 1 || len(created) != 1 || !slices.Equal(deleted, deletes) {
				t.Fatalf("paired %q, created %q, deleted %q; kapp adds %q, deletes %q", ids(set.Pairs), created, deleted, adds, deletes)
			}
			if base, _ := baseName(adds[0]); base != created[0] {
				t.Errorf("created %q; kapp adds %q", created[0], adds[0])
			}
		})
	}
}
