package kappcover

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/internal/kappmatch"
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
	compared, pruned, unreached := 0, 0, 0
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
			// every differing field, and those outside metadata (which kapp's own rules always
			// reach): a Deployment's defaulted spec fields alone, which they do not
			var ps, outside []fielddiff.Path
			for _, d := range deltas {
				ps = append(ps, d.Path)
				if d.Path[0].FieldName == nil || *d.Path[0].FieldName != "metadata" {
					outside = append(outside, d.Path)
				}
			}
			for _, r := range rebasers {
				whole := r
				whole.reach = []reach{{}} // a matcher unknown: every field
				for _, ps := range [][]fielddiff.Path{ps, outside} {
					want, errWant := whole.Covered(desired.Unstructured, live.Unstructured, ps)
					got, errGot := r.Covered(desired.Unstructured, live.Unstructured, ps)
					if (errWant == nil) != (errGot == nil) || !slices.Equal(want, got) {
						t.Errorf("%s %s: covered %v (%v), with the resources whole %v (%v)", name, p.ID, got, errGot, want, errWant)
					}
					fields, all, _ := r.fields(desired.Unstructured)
					if !all {
						pruned++
					}
					if !all && len(r.configs) == 0 && len(ps) > 0 && !reachesAny(ps, fields) {
						unreached++
					}
					compared++
				}
			}
		}
	}
	if pruned == 0 || pruned == compared || unreached == 0 {
		t.Errorf("%d of %d comparisons with fewer fields, %d with no field kapp's own rules reach: the test compares nothing", pruned, compared, unreached)
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

// TestCoveredWithoutManagedFieldsAsWhole: handed to kapp without metadata.managedFields (which
// its copy rules would copy whole for every path), the rules restore what they restore with the
// resources whole, when the answer depends on managedFields: a matcher reading them (here after a
// rule copied the live metadata into the result) and a path asked inside them. The oracle is
// kapp's rebase of the whole resources, and in both cases it finds the field restored.
func TestCoveredWithoutManagedFieldsAsWhole(t *testing.T) {
	const rules = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [metadata]
  type: copy
  sources: [existing]
  resourceMatchers: [allMatcher: {}]
- path: [metadata, annotations, a]
  type: remove
  resourceMatchers: [emptyFieldMatcher: {path: [metadata, managedFields]}]
`
	configs, err := load.Bytes("rules.yaml", []byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(configs, true)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := load.Bytes("objects.yaml", []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: demo, annotations: {a: "1"}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  namespace: demo
  annotations: {a: "2"}
  managedFields:
  - {manager: kapp, operation: Update, apiVersion: v1, fieldsType: FieldsV1, fieldsV1: {f:metadata: {f:annotations: {f:a: {}}}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	desired, live := objs[0].Unstructured, objs[1].Unstructured
	whole := r
	whole.reach = []reach{{}} // a matcher unknown: every field, managedFields too
	for _, ps := range [][]fielddiff.Path{
		{fielddiff.Path(fieldpath.MakePathOrDie("metadata", "annotations", "a"))},
		{fielddiff.Path(fieldpath.MakePathOrDie("metadata", "managedFields"))},
	} {
		want, err := whole.Covered(desired, live, ps)
		if err != nil || len(want) != 1 || !want[0] {
			t.Fatalf("%v: kapp on the whole resources: covered %v (%v), want it restored", ps, want, err)
		}
		if got, err := r.Covered(desired, live, ps); err != nil || !slices.Equal(got, want) {
			t.Errorf("%v: covered %v (%v), with the resources whole %v", ps, got, err, want)
		}
	}
}

// A rule naming another resource never runs on this one: fields decides rules by the resource's
// identity as kappmatch decides them (kappmatch.ByIdentity), its name and namespace included, so
// the rule's fields are not handed to kapp. kappcover's own walk decided by apiVersion and kind
// alone and read spec for every Deployment.
func TestFieldsLeaveOutARuleNamingAnotherResource(t *testing.T) {
	cfgs, err := load.Bytes("rules.yml", []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing, new]
  path: [spec, replicas]
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: Deployment, namespace: ns, name: api}
`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(cfgs, true)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"web": false, "api": true} {
		d := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name, "namespace": "ns"}}}
		fields, all, _ := r.fields(d)
		if all || fields["spec"] != want {
			t.Errorf("%s: fields %v (all %t); want spec %t", name, fields, all, want)
		}
	}
}

// Deciding kapp's built-in rules on a resource's identity makes that identity once, not once per
// rule (performance: per rule, it was a tenth of classification's allocations). The answer is
// the one each rule's matcher gives on its own (kappmatch.ByIdentity).
func TestFieldsMakeOneIdentityForAllRules(t *testing.T) {
	r, err := New(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	d := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "ns"}}}
	want := map[string]bool{"apiVersion": true, "kind": true, "metadata": true}
	for _, m := range r.reach {
		if m.matcher != nil {
			if matches, decided := kappmatch.ByIdentity(m.matcher, d); decided && !matches {
				continue
			}
		}
		if m.matcher == nil || m.any {
			t.Fatalf("a built-in rule reaches any field of a Deployment: %+v", m)
		}
		for _, f := range m.fields {
			want[f] = true
		}
	}
	if fields, all, _ := r.fields(d); all || !maps.Equal(fields, want) {
		t.Errorf("fields %v (all %t), want %v", fields, all, want)
	}
	if len(r.reach) < 10 {
		t.Fatalf("%d built-in rules: too few for the allocation bound to tell", len(r.reach))
	}
	// one identity (its maps and resource) and the fields map, whatever the number of rules
	if n := testing.AllocsPerRun(100, func() { r.fields(d) }); n > 20 {
		t.Errorf("fields of a Deployment: %.0f allocations for %d rules, want at most 20", n, len(r.reach))
	}
}
