package kappcover

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/rulesets"
)

// rulesReachingPastMetadata: rebase rules of the shapes kapp reads, beyond kapp's own (which
// reach metadata, and spec of a few kinds): paths under spec and status, matchers reading empty
// fields, names, annotations and namespaces, and a rule no resource's kind matches.
const rulesReachingPastMetadata = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- paths: [[spec, replicas], [spec, template, spec, containers, {allIndexes: true}, imagePullPolicy]]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiGroupKindMatcher: {apiGroup: apps, kind: Deployment}
      - notMatcher: {matcher: {emptyFieldMatcher: {path: [spec, selector]}}}
- path: [status]
  type: remove
  resourceMatchers:
  - notMatcher: {matcher: {hasAnnotationMatcher: {keys: [never]}}}
- path: [spec, ports, {allIndexes: true}, nodePort]
  type: copy
  sources: [new, existing]
  resourceMatchers:
  - anyMatcher: {matchers: [{kindNamespaceNameMatcher: {kind: Service, namespace: services, name: web}}, {hasNamespaceMatcher: {}}]}
- path: [data]
  type: copy
  sources: [existing]
  resourceMatchers:
  - customResourceMatcher: {}
  - apiVersionKindMatcher: {apiVersion: v1, kind: ConfigMap}
- path: [spec, never]
  type: copy
  sources: [existing]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: example.com/v1, kind: Nothing}
`

// TestCoveredByFieldsAsByWholeResources: kapp's rules, handed only the top-level fields they can
// reach (covered), restore exactly the fields they restore when handed the resources whole, for
// every differing field of every captured pair: with kapp's own rules, the package's, and rules
// reaching past metadata.
func TestCoveredByFieldsAsByWholeResources(t *testing.T) {
	dirs, err := filepath.Glob("../../fixtures/*/live.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	extra, err := load.Bytes("rules.yaml", []byte(rulesReachingPastMetadata))
	if err != nil {
		t.Fatal(err)
	}
	compared, pruned := 0, 0
	for _, live := range dirs {
		name := filepath.Base(filepath.Dir(live))
		if _, err := os.Stat(filepath.Join(filepath.Dir(live), "desired.yaml")); err != nil {
			continue
		}
		set := fixtureSet(t, name)
		var rebasers []Rebaser
		for _, cfg := range []struct {
			configs []load.Object
			only    bool
		}{{nil, false}, {set.Configs, true}, {extra, true}} {
			if cfg.only && len(cfg.configs) == 0 {
				continue
			}
			r, err := New(cfg.configs, cfg.only)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rebasers = append(rebasers, r)
		}
		for _, p := range set.Pairs {
			desired, live, err := p.Objects()
			if err != nil {
				t.Fatal(err)
			}
			deltas, err := fielddiff.Diff(desired.Unstructured, live.Unstructured)
			if err != nil {
				t.Fatal(err)
			}
			var ps []fielddiff.Path
			for _, d := range deltas {
				ps = append(ps, d.Path)
			}
			for _, r := range rebasers {
				whole := r
				whole.reach = []reach{{}} // a matcher unknown: every field
				want, errWant := whole.Covered(desired.Unstructured, live.Unstructured, ps)
				got, errGot := r.Covered(desired.Unstructured, live.Unstructured, ps)
				if (errWant == nil) != (errGot == nil) || !slices.Equal(want, got) {
					t.Errorf("%s %s: covered %v (%v), with the resources whole %v (%v)", name, p.ID, got, errGot, want, errWant)
				}
				if _, all := r.fields(desired.Unstructured); !all {
					pruned++
				}
				compared++
			}
		}
	}
	if pruned == 0 || pruned == compared {
		t.Errorf("%d of %d comparisons with fewer fields: the test compares nothing", pruned, compared)
	}
}

// fixtureSet is a captured scenario's pairs.
func fixtureSet(t *testing.T, name string) *pair.Set {
	t.Helper()
	rs, err := rulesets.Load()
	if err != nil {
		t.Fatal(err)
	}
	var sides [2][]load.Doc
	for i, f := range []string{"desired.yaml", "live.yaml"} {
		path := filepath.Join("..", "..", "fixtures", name, f)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if sides[i], err = load.ParseDocs(path, data); err != nil {
			t.Fatal(err)
		}
	}
	set, err := pair.Build(sides[0], sides[1], pair.Options{Rules: rs})
	if err != nil {
		t.Fatal(err)
	}
	return set
}
