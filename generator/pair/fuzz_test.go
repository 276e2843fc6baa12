package pair

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/rulesets"
)

var namespaceLine = regexp.MustCompile(`(?m)^namespace: *(\S+)`)

// FuzzPair: pairing any loadable desired and live objects never panics, accounts for every
// desired resource exactly once, pairs only objects of the same identity, and does not depend on
// the order of the inputs (generate's output must not either).
func FuzzPair(f *testing.F) {
	dirs, err := filepath.Glob("../../fixtures/*/scenario.yaml")
	if err != nil || len(dirs) == 0 {
		f.Fatalf("no fixtures (%v)", err)
	}
	for _, s := range dirs {
		dir := filepath.Dir(s)
		read := func(name string) []byte {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				f.Fatal(err)
			}
			return b
		}
		ns := ""
		if m := namespaceLine.FindSubmatch(read("scenario.yaml")); m != nil {
			ns = string(m[1])
		}
		f.Add(read("desired.yaml"), read("live.yaml"), ns)
		f.Add([]byte{}, read("live.yaml"), ns) // desired recovered from kapp.k14s.io/original
	}
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n"),
		[]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-ver-1, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-ver-2, namespace: x}\n"), "x")
	// a plain NAME next to a versioned NAME-ver-N, and two names for one version
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, annotations: {kapp.k14s.io/versioned: \"\"}}\n"),
		[]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-ver-1, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: x}\n"), "x")
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n"),
		[]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-ver-1, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-ver-01, namespace: x}\n"), "x")
	f.Add([]byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ws.example.com}\nspec: {group: example.com, scope: Cluster, names: {kind: W}}\n---\napiVersion: example.com/v1\nkind: W\nmetadata: {name: a}\n"),
		[]byte("apiVersion: example.com/v1\nkind: W\nmetadata: {name: a}\n"), "")

	rs, err := rulesets.Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, desired, live []byte, ns string) {
		d, err := load.ParseDocs("desired.yaml", desired)
		if err != nil {
			return
		}
		l, err := load.ParseDocs("live.yaml", live)
		if err != nil {
			return
		}
		set, err := Build(d, l, Options{Namespace: ns, Rules: rs})
		rset, rerr := Build(reversed(d), reversed(l), Options{Namespace: ns, Rules: rs})
		if (err == nil) != (rerr == nil) {
			t.Fatalf("pairing depends on the input order: %v / reversed: %v", err, rerr)
		}
		if err != nil {
			if !strings.Contains(err.Error(), ".yaml: document ") && !strings.Contains(err.Error(), "no --desired given") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		if got, want := summary(set), summary(rset); got != want {
			t.Fatalf("pairing depends on the input order:\n%s\nreversed:\n%s", got, want)
		}
		resources := 0
		for _, o := range d {
			if !load.IsKappConfig(o.APIVersion, o.Kind) {
				resources++
			}
		}
		if len(d) > 0 && len(set.Pairs)+len(set.Created) != resources {
			t.Fatalf("%d desired resources, %d paired and %d created", resources, len(set.Pairs), len(set.Created))
		}
		if len(set.Pairs)+len(set.Deleted)+len(set.LiveOnly) > len(l) {
			t.Fatalf("%d live objects, %d paired, %d deleted and %d live only", len(l), len(set.Pairs), len(set.Deleted), len(set.LiveOnly))
		}
		for i, p := range set.Pairs {
			if i > 0 && !set.Pairs[i-1].ID.Less(p.ID) {
				t.Fatalf("pairs not sorted or not unique: %s then %s", set.Pairs[i-1].ID, p.ID)
			}
			d, l, err := p.Objects()
			if err != nil {
				t.Fatal(err)
			}
			if groupOf(d.GetAPIVersion()) != p.ID.Group || d.GetKind() != p.ID.Kind || d.GetName() != p.ID.Name {
				t.Fatalf("pair %s holds desired %s %s", p.ID, d.GetAPIVersion(), d.GetName())
			}
			if d.GetNamespace() != p.Desired.Namespace || d.GetNamespace() != p.ID.Namespace && p.ID.Namespace != "" {
				t.Fatalf("pair %s holds desired in namespace %q (doc: %q)", p.ID, d.GetNamespace(), p.Desired.Namespace)
			}
			if base, _ := baseName(l.GetName()); groupOf(l.GetAPIVersion()) != p.ID.Group || l.GetKind() != p.ID.Kind ||
				(l.GetName() != p.ID.Name && base != p.ID.Name) {
				t.Fatalf("pair %s holds live %s %s", p.ID, l.GetAPIVersion(), l.GetName())
			}
		}
	})
}

func reversed(objs []load.Doc) []load.Doc {
	out := slices.Clone(objs)
	slices.Reverse(out)
	return out
}

// summary is the pairing result as text: identities and where each object came from.
func summary(s *Set) string {
	var b strings.Builder
	for _, p := range s.Pairs {
		fmt.Fprintf(&b, "pair %s: %s | %s\n", p.ID, p.Desired.Source, p.Live.Source)
	}
	for _, o := range s.Created {
		fmt.Fprintf(&b, "created %s\n", o.Source)
	}
	for _, o := range s.Deleted {
		fmt.Fprintf(&b, "deleted %s\n", o.Source)
	}
	for _, o := range s.LiveOnly {
		fmt.Fprintf(&b, "live only %s\n", o.Source)
	}
	return b.String()
}
