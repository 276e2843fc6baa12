package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/pair"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/rulesets"
)

const fixtures = "../../fixtures"

// want is one expected finding: message and suggestion are substrings.
type want struct {
	sev        Severity
	line       int
	msg        string
	suggestion string
}

func assertFindings(t *testing.T, got []Finding, file string, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(wants), dump(got))
	}
	for i, w := range wants {
		g := got[i]
		if g.Severity != w.sev || g.Line != w.line || g.File != file || !strings.Contains(g.Message, w.msg) || !strings.Contains(g.Suggestion, w.suggestion) {
			t.Errorf("finding %d:\n got  %s\n want %s %s:%d %q (suggestion %q)", i, dump(got[i:i+1]), w.sev, file, w.line, w.msg, w.suggestion)
		}
	}
}

func dump(fs []Finding) string {
	var b bytes.Buffer
	_ = Write(&b, fs, FormatText)
	return b.String()
}

// TestFixtures: one realistic rule file per mistake, each with the exact finding it must get.
func TestFixtures(t *testing.T) {
	scenario := func(name, ns string, live bool) inputs {
		in := inputs{desired: []string{filepath.Join(fixtures, name, "desired.yaml")}, namespace: ns}
		if live {
			in.live = []string{filepath.Join(fixtures, name, "live.yaml")}
		}
		return in
	}
	cases := []struct {
		name string
		in   inputs
		want []want
	}{
		{"default-webhook-cabundle", inputs{}, []want{
			{Warning, 6, "path [webhooks, {allIndexes: true}, clientConfig, caBundle] repeats kapp's built-in rebase rule", "remove it"}}},
		{"hpa-replicas-all-deployments", scenario("lint/hpa-replicas-all-deployments", "shop", false), []want{
			{Warning, 6, "takes the cluster's replica count for 2 resources no autoscaler among the desired objects scales (apps/Deployment shop/api, apps/Deployment shop/worker)",
				"match only what an autoscaler scales: kindNamespaceNameMatcher: {kind: Deployment, namespace: shop, name: web}"}}},
		{"secret-data-copy", scenario("controller-filled-data", "controller-filled-data", true), []want{
			{Warning, 6, "path [data] rebases a whole subtree: any change made in Git under it is hidden too",
				`rebasegen generate writes only core/Secret controller-filled-data/web-tls: data["tls.crt"], data["tls.key"]`}}},
		// Without the mutation check (Options.Hides: generator_test covers it), the subtree warning.
		{"crd-spec-copy", scenario("crd-defaults", "crd-defaults", true), []want{
			{Warning, 6, "path [spec] rebases a whole subtree: any change made in Git under it is hidden too",
				"rebasegen generate writes only crd-defaults.rebasegen.dev/Backup crd-defaults/nightly: spec.retention, spec.schedule, spec.storage.compression, spec.suspend, spec.targets[0].port, spec.targets[0].tls"}}},
		{"allmatcher-status", inputs{}, []want{
			{Warning, 5, "path [status] rebases a whole subtree: status needs no rule", "remove the path"},
			{Warning, 9, "allMatcher: the rule applies to every resource kapp deploys", "apiVersionKindMatcher"}}},
		{"matcher-name-key", inputs{}, []want{
			{Error, 13, `unknown key "name" in apiVersionKindMatcher: kapp ignores it, so the rule applies to every apps/v1 Deployment, not one`,
				"kindNamespaceNameMatcher: {kind: Deployment, namespace: NAMESPACE, name: envoy}"}}},
		// With the package's objects: the namespace is known, and the widened rule now takes the
		// replica count of contour, which no HPA scales, from the cluster too.
		{"matcher-name-key", scenario("lint/matcher-name-key", "default", false), []want{
			{Warning, 6, "takes the cluster's replica count for 1 resource no autoscaler among the desired objects scales (apps/Deployment projectcontour/contour)", ""},
			{Error, 13, `unknown key "name" in apiVersionKindMatcher`, "kindNamespaceNameMatcher: {kind: Deployment, namespace: projectcontour, name: envoy}"}}},
		{"namespaced-clusterrole", inputs{}, []want{
			{Error, 12, `ClusterRole is cluster-scoped, so namespace "monitoring" never matches`,
				`kindNamespaceNameMatcher: {kind: ClusterRole, namespace: "", name: prometheus-aggregate}`}}},
		{"stale-apiversion", scenario("lint/stale-apiversion", "harbor", false), []want{
			{Warning, 12, "apiVersionKindMatcher {apiVersion: apps/v1beta1, kind: Deployment} matches none of the desired objects",
				"the desired Deployment objects have apiVersion apps/v1"}}},
		{"invalid-type", inputs{}, []want{
			{Error, 8, `type "copyy" is not copy or remove: kapp panics`, "type: copy or type: remove"}}},
		{"invalid-source", inputs{}, []want{
			{Error, 8, `source "live" is not new or existing: kapp silently skips it`, "sources: [new, existing]"}}},
		{"path-ends-in-index", inputs{}, []want{
			{Error, 5, "path [spec, template, spec, containers, {allIndexes: true}] ends in a list index", "ytt rule"}}},
		// The Config inside a labelled ConfigMap's config.yml: lines are the file's lines.
		{"configmap-config", inputs{}, []want{
			{Error, 27, `unknown key "namespace" in apiGroupKindMatcher: kapp ignores it, so the rule applies to every StatefulSet of API group "apps"`,
				"kindNamespaceNameMatcher: {kind: StatefulSet, namespace: kafka, name: NAME}"}}},
	}
	for _, c := range cases {
		t.Run(c.name+fmt.Sprintf("/desired=%d", len(c.in.desired)), func(t *testing.T) {
			file := filepath.Join(fixtures, "lint", c.name, "rules.yml")
			got, err := Check(optionsFor(t, []string{file}, c.in))
			if err != nil {
				t.Fatal(err)
			}
			assertFindings(t, got, file, c.want)
			for _, f := range got {
				if f.Rule != 0 {
					t.Errorf("rule index %d, want 0", f.Rule)
				}
			}
		})
	}
}

// TestMistakes covers the rest of what kapp rejects, panics on or silently ignores.
func TestMistakes(t *testing.T) {
	const head = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:" // rules start on line 4
	cases := []struct {
		name, rules string
		want        []want
	}{
		{"both path and paths", `
- path: [spec, a]
  paths: [[spec, b]]
  type: copy
  sources: [new, existing]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Service}}]`,
			[]want{{Error, 5, "both path and paths: kapp rejects the Config", "move path into paths"}}},
		{"neither path nor paths", `
- type: remove
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Service}}]`,
			[]want{{Error, 4, "neither path nor paths", ""}}},
		{"empty matcher", `
- path: [spec, a]
  type: remove
  resourceMatchers:
  - {}`,
			[]want{{Error, 7, "empty matcher: kapp panics", "apiVersionKindMatcher"}}},
		{"empty matcher nested", `
- path: [spec, a]
  type: remove
  resourceMatchers:
  - notMatcher: {}`,
			[]want{{Error, 7, "empty matcher: kapp panics", ""}}},
		{"two matchers in one item", `
- path: [spec, a]
  type: remove
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: Service}
    kindNamespaceNameMatcher: {kind: Service, namespace: a, name: b}`,
			[]want{{Error, 7, "one matcher sets apiVersionKindMatcher and kindNamespaceNameMatcher", "one matcher per list item"}}},
		{"ytt with extra keys", `
- ytt:
    overlayContractV1:
      overlay.yml: ""
  type: copy
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Service}}]`,
			[]want{{Error, 7, "type next to ytt: kapp rejects the Config", ""}}},
		{"ytt without contract", `
- ytt: {overlayContract: {overlay.yml: ""}}
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Service}}]`,
			[]want{
				{Error, 4, `unknown key "overlayContract" in ytt`, ""},
				{Error, 4, "ytt rule without overlayContractV1: kapp panics", ""}}},
		{"copy without sources", `
- path: [spec, a]
  type: copy
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Service}}]`,
			[]want{{Error, 5, "copy without sources: the rule copies nothing", "sources: [new, existing]"}}},
		{"unknown path part key", `
- path: [spec, ports, {all: true}, nodePort]
  type: copy
  sources: [new, existing]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Service}}]`,
			[]want{
				{Error, 4, "path part is none of KEY", ""},
				{Error, 4, `unknown key "all" in path part: kapp ignores it (known keys: regex, index, allIndexes)`, ""}}},
		{"invalid regex", `
- path: [metadata, annotations, {regex: "^(example.com/"}]
  type: copy
  sources: [existing, new]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Service}}]`,
			[]want{{Error, 4, "invalid regex", ""}}},
		{"no matchers", `
- path: [spec, a]
  type: copy
  sources: [new, existing]`,
			[]want{{Warning, 4, "no resourceMatchers: the rule applies to nothing", ""}}},
		{"not a rule", `
- [spec, a]`,
			[]want{{Error, 4, "kapp cannot read the rule", ""}}},
		{"keys in any case, as kapp reads them", `
- PATH: [spec, a]
  Type: copy
  Sources: [new, existing]
  ResourceMatchers: [{APIVersionKindMatcher: {apiversion: v1, Kind: Service}}]`,
			nil},
		{"unknown Config key", ` []
rebaseRule:
- path: [spec, a]`,
			[]want{{Error, 4, `unknown key "rebaseRule" in Config: kapp ignores it`, ""}}},
		{"rebaseRules not a list", ` {path: [a]}`,
			[]want{{Error, 3, "rebaseRules is not a list", ""}}},
		// probe23 findings 9 and 11: kapp refuses these Configs (config.go Validate) or panics
		// (mod_field_copy.go indexes with a negative index); lint said "0 errors"
		{"minimumRequiredVersion not met", ` []
minimumRequiredVersion: 0.99.0`,
			[]want{{Error, 4, "minimumRequiredVersion: kapp rejects the Config: kapp version '0.66.0' does not meet the minimum required version '0.99.0'", "minimumRequiredVersion: 0.66.0"}}},
		{"minimumRequiredVersion with a v", ` []
minimumRequiredVersion: v0.1.0`,
			[]want{{Error, 4, "Must not have prefix 'v'", ""}}},
		{"negative index", `
- path: [spec, template, spec, containers, {index: -1}, image]
  type: copy
  sources: [existing]
  resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: Service}}]`,
			[]want{{Error, 4, "negative list index {index: -1}: kapp panics", "{allIndexes: true}"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assertLinted(t, head+c.rules+"\n", c.want) })
	}
}

// assertLinted lints a file holding config alone and asserts its findings.
func assertLinted(t *testing.T, config string, wants []want) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "config.yml")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Check(Options{Rules: []string{file}})
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, file, wants)
}

func TestConfigMapProblems(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cm.yml")
	// A quoted config.yml has no line of its own for each key: findings carry the key's line.
	data := `apiVersion: v1
kind: ConfigMap
metadata:
  name: quoted
  labels: {kapp.k14s.io/config: ""}
data:
  config.yml: "{apiVersion: kapp.k14s.io/v1alpha1, kind: Config, rebaseRules: [{path: [a], type: cpy, sources: [new], resourceMatchers: [{allMatcher: {}}]}]}"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: empty
  labels: {kapp.k14s.io/config: ""}
data: {}
`
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Check(Options{Rules: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, file, []want{
		{Warning, 7, "allMatcher", ""},
		{Error, 7, `type "cpy" is not copy or remove`, ""},
		{Error, 8, "ConfigMap labelled kapp.k14s.io/config has no data.config.yml: kapp rejects it", ""},
	})
	if got[2].Rule != -1 {
		t.Errorf("document finding has rule %d, want -1", got[2].Rule)
	}
}

func TestInputErrors(t *testing.T) {
	if _, err := Check(Options{Rules: []string{filepath.Join(fixtures, "hpa-replicas", "desired.yaml")}}); err == nil || !strings.Contains(err.Error(), "no kapp Config") {
		t.Errorf("no Config documents: got %v", err)
	}
	if _, err := Check(Options{Rules: []string{"does-not-exist.yml"}}); err == nil {
		t.Error("missing file: no error")
	}
}

// TestSorted: findings of several files come sorted by file, then line, whatever the order given.
func TestSorted(t *testing.T) {
	dir := filepath.Join(fixtures, "lint")
	got, err := Check(Options{Rules: []string{filepath.Join(dir, "invalid-type"), filepath.Join(dir, "allmatcher-status")}})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range got {
		order = append(order, fmt.Sprintf("%s:%d", filepath.Base(filepath.Dir(f.File)), f.Line))
	}
	if strings.Join(order, " ") != "allmatcher-status:5 allmatcher-status:9 invalid-type:8" {
		t.Errorf("order: %v", order)
	}
}

// inputs are the objects a test lints rules against.
type inputs struct {
	desired, live []string
	namespace     string
}

// optionsFor builds what the orchestrator hands lint: the paired objects and, with live objects,
// the rules generate synthesizes for them.
func optionsFor(t *testing.T, rules []string, in inputs) Options {
	t.Helper()
	opts := Options{Rules: rules}
	if len(in.desired) == 0 && len(in.live) == 0 {
		return opts
	}
	rs, err := rulesets.Load()
	if err != nil {
		t.Fatal(err)
	}
	desired, err := load.Docs(in.desired, nil)
	if err != nil {
		t.Fatal(err)
	}
	live, err := load.Docs(in.live, nil)
	if err != nil {
		t.Fatal(err)
	}
	set, err := pair.Build(desired, live, pair.Options{Namespace: in.namespace, Rules: rs})
	if err != nil {
		t.Fatal(err)
	}
	opts.Set, opts.Desired, opts.Ruleset = set, len(in.desired) > 0, rs
	if len(in.live) > 0 {
		rep, err := classify.Classify(set, classify.Options{Rules: rs})
		if err != nil {
			t.Fatal(err)
		}
		res := synth.Synthesize(rep, synth.Options{})
		opts.Generated = &res
	}
	return opts
}

// Regression: a desired HPA without spec next to a rule taking spec.replicas from the cluster
// crashed lint (a type assertion on the missing spec).
func TestHPAWithoutSpecDoesNotCrash(t *testing.T) {
	dir := t.TempDir()
	desired := filepath.Join(dir, "desired.yaml")
	os.WriteFile(desired, []byte(`apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: app}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec: {replicas: 1}
`), 0o644)
	rules := filepath.Join(dir, "rules.yml")
	os.WriteFile(rules, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, replicas]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`), 0o644)
	got, err := Check(optionsFor(t, []string{rules}, inputs{desired: []string{desired}}))
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, rules, []want{{Warning, 4, "no autoscaler among the desired objects scales (apps/Deployment app/web)", ""}})
}

// CRD scope is read by GroupKind (issue 10): one kind, cluster-scoped in one API group and
// namespaced in another (the two CRDs below say so). A matcher naming the group gets the scope of
// that group; kindNamespaceNameMatcher, which names no group, is cluster-scoped only where no group
// holds the kind namespaced.
func TestScopeIsReadByGroupKind(t *testing.T) {
	dir := t.TempDir()
	desired := filepath.Join(dir, "desired.yaml")
	os.WriteFile(desired, []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.cluster.example}
spec: {group: cluster.example, scope: Cluster, names: {kind: Widget, plural: widgets}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.ns.example}
spec: {group: ns.example, scope: Namespaced, names: {kind: Widget, plural: widgets}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.cluster.example}
spec: {group: cluster.example, scope: Cluster, names: {kind: Gadget, plural: gadgets}}
`), 0o644)
	rules := filepath.Join(dir, "rules.yml")
	os.WriteFile(rules, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, a]
  type: copy
  sources: [new, existing]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: cluster.example/v1, kind: Widget, name: w}
  - apiGroupKindMatcher: {apiGroup: ns.example, kind: Widget, name: w}
  - kindNamespaceNameMatcher: {kind: Widget, namespace: x, name: w}
  - kindNamespaceNameMatcher: {kind: Gadget, namespace: x, name: g}
`), 0o644)
	opts := optionsFor(t, []string{rules}, inputs{desired: []string{desired}})
	opts.Desired = false // the matchers' scope only, not whether they match a desired object
	got, err := Check(opts)
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, rules, []want{
		{Error, 8, `unknown key "name" in apiVersionKindMatcher`, `kindNamespaceNameMatcher: {kind: Widget, namespace: "", name: w}`},
		{Error, 9, `unknown key "name" in apiGroupKindMatcher`, "kindNamespaceNameMatcher: {kind: Widget, namespace: NAMESPACE, name: w}"},
		{Error, 11, `Gadget is cluster-scoped, so namespace "x" never matches`, `kindNamespaceNameMatcher: {kind: Gadget, namespace: "", name: g}`},
	})
}

// A rule naming several resources of a kind, as generate writes it (the kind's matcher, then the
// anyMatcher of their names): a stale name in the list is reported on its own line, as one in a
// plain list of names is, and the rule
// is a deliberate list of names, so the replicas check leaves it alone (no autoscaler scales
// app/api here, a job may).
func TestNamesBehindKindMatcher(t *testing.T) {
	dir := t.TempDir()
	desired := filepath.Join(dir, "desired.yaml")
	os.WriteFile(desired, []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec: {replicas: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: app}
spec: {replicas: 1}
`), 0o644)
	rules := filepath.Join(dir, "rules.yml")
	os.WriteFile(rules, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, replicas]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
      - anyMatcher:
          matchers:
          - kindNamespaceNameMatcher: {kind: Deployment, namespace: app, name: web}
          - kindNamespaceNameMatcher: {kind: Deployment, namespace: app, name: gone}
          - kindNamespaceNameMatcher: {kind: Deployment, namespace: app, name: api}
- path: [spec, paused]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - kindNamespaceNameMatcher: {kind: Deployment, namespace: app, name: api}
  - kindNamespaceNameMatcher: {kind: Deployment, namespace: other, name: api}
`), 0o644)
	got, err := Check(optionsFor(t, []string{rules}, inputs{desired: []string{desired}}))
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, rules, []want{{Warning, 14, "kindNamespaceNameMatcher {kind: Deployment, name: gone, namespace: app} matches none of the desired objects",
		"the desired Deployment objects have namespace/name app/api, app/web"},
		{Warning, 21, "kindNamespaceNameMatcher {kind: Deployment, name: api, namespace: other} matches none of the desired objects", ""}})
}

// A name beside a gate the named object fails (what generate's Secret wrote for a Deployment
// without container ports in the rule copying ports[*].protocol) is reported as failing the
// gate, with the gate's line: "matches none of the desired objects" followed by a suggestion
// listing that very object contradicted itself (newcomer11 N11-4). A name of no desired object
// keeps the near-miss message.
func TestNameFailingTheAndMatchersGate(t *testing.T) {
	dir := t.TempDir()
	desired := filepath.Join(dir, "desired.yaml")
	os.WriteFile(desired, []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec:
  template:
    spec:
      containers:
      - {name: web, image: web, ports: [{containerPort: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: app}
spec:
  template:
    spec:
      containers:
      - {name: worker, image: worker}
`), 0o644)
	rules := filepath.Join(dir, "rules.yml")
	os.WriteFile(rules, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- paths:
  - [spec, template, spec, containers, {allIndexes: true}, ports, {allIndexes: true}, protocol]
  type: copy
  sources: [new, existing]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
      - notMatcher:
          matcher:
            emptyFieldMatcher: {path: [spec, template, spec, containers, {allIndexes: true}, ports]}
      - anyMatcher:
          matchers:
          - kindNamespaceNameMatcher: {kind: Deployment, namespace: app, name: web}
          - kindNamespaceNameMatcher: {kind: Deployment, namespace: app, name: worker}
          - kindNamespaceNameMatcher: {kind: Deployment, namespace: app, name: gone}
`), 0o644)
	got, err := Check(optionsFor(t, []string{rules}, inputs{desired: []string{desired}}))
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, rules, []want{
		{Warning, 18, "kindNamespaceNameMatcher {kind: Deployment, name: worker, namespace: app} names the desired apps/Deployment app/worker, but no desired object matches the whole andMatcher with it: it fails notMatcher {matcher: {emptyFieldMatcher: {path: [spec, template, spec, containers, {allIndexes: true}, ports]}}} (line 12)",
			"remove the name: kapp never applies the rule to the object it names"},
		{Warning, 19, "kindNamespaceNameMatcher {kind: Deployment, name: gone, namespace: app} matches none of the desired objects",
			"the desired Deployment objects have namespace/name app/web, app/worker"}})
}

// TestArgoCDRulesPointToCheck (newcomer3 finding 7): lint given an Argo CD Application said only
// that it holds no kapp Config; it says which command judges Argo CD's ignoreDifferences.
func TestArgoCDRulesPointToCheck(t *testing.T) {
	app := filepath.Join("..", "..", "examples", "argocd", "index-pointer.yml")
	_, err := Check(Options{Rules: []string{app}})
	if want := "Application my-app holds Argo CD's ignoreDifferences, which `rebasegen check --target argocd --rules " + app + "` lints and judges"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("lint of an Application: %v\nwant it to say %q", err, want)
	}
	if _, err := Check(Options{Rules: []string{filepath.Join(fixtures, "hpa-replicas", "desired.yaml")}}); err == nil || strings.Contains(err.Error(), "Argo CD") {
		t.Errorf("lint of files without Argo CD's settings: %v, want no word of Argo CD", err)
	}
}

// probe13 P13-5: kapp-controller v0.51.0 deploys a package with kapp v0.62.0, whose Config
// validation refuses a minimumRequiredVersion above it (and with it every deploy of the package),
// where the kapp rebasegen links accepts it: lint said 0 errors for the rules of a Package
// (--package-cr) and for a rules Secret, which only kapp-controller reads. For plain kapp, the
// kapp rebasegen links is the judge (TestConfigProblems).
func TestKappControllersKappRefusesANewerMinimum(t *testing.T) {
	const config = "---\napiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nminimumRequiredVersion: %s\nrebaseRules: []\n"
	secret := func(minimum string) string {
		return "apiVersion: v1\nkind: Secret\nmetadata: {name: rules}\nstringData:\n  rebase-rules.yml: |\n    apiVersion: kapp.k14s.io/v1alpha1\n    kind: Config\n    minimumRequiredVersion: " + minimum + "\n    rebaseRules: []\n"
	}
	refused := "minimumRequiredVersion: kapp-controller v0.51.0 deploys the package with kapp v0.62.0, which rejects the Config (no change of the package is applied): kapp version '0.62.0' does not meet the minimum required version '0.66.0' (kapp v0.66.0, which rebasegen embeds, accepts it)"
	for name, c := range map[string]struct {
		text           string
		kappController bool
		want           []want
	}{
		"plain kapp":                      {fmt.Sprintf(config, "0.66.0"), false, nil},
		"package, second document":        {"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n" + fmt.Sprintf(config, "0.66.0"), true, []want{{Error, 8, "document 2: " + refused, "minimumRequiredVersion: 0.60.0"}}},
		"package, kapp-controller's":      {fmt.Sprintf(config, "0.62.0"), true, nil},
		"rules Secret":                    {secret("0.66.0"), false, []want{{Error, 8, refused, ""}}},
		"rules Secret, kapp-controller's": {secret("0.60.0"), false, nil},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "rules.yml")
			if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Check(Options{Rules: []string{file}, KappController: c.kappController})
			if err != nil {
				t.Fatal(err)
			}
			assertFindings(t, got, file, c.want)
		})
	}
}

// A labelled ConfigMap's config.yml holding more than one document: kapp reads the first alone
// (sigs.k8s.io/yaml.Unmarshal in resources.NewResourceFromBytes) and deploys (probe18 P18-1: lint
// said "kapp rejects it", failing the gate for a reason that is not kapp's). kapp's own parser
// is the oracle of which ConfigMap it rejects.
func TestConfigMapFirstDocumentIsKapps(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cm.yml")
	data := `apiVersion: v1
kind: ConfigMap
metadata:
  name: two
  labels: {kapp.k14s.io/config: ""}
data:
  config.yml: |
    apiVersion: kapp.k14s.io/v1alpha1
    kind: Config
    rebaseRules:
    - {path: [a], type: copy, sources: [new, existing], resourceMatchers: [{allMatcher: {}}]}
    ---
    apiVersion: kapp.k14s.io/v1alpha1
    kind: Config
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: notfirst
  labels: {kapp.k14s.io/config: ""}
data:
  config.yml: |
    apiVersion: v1
    kind: ConfigMap
    ---
    apiVersion: kapp.k14s.io/v1alpha1
    kind: Config
`
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, err := load.Paths([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, wantErr := range []bool{false, true} {
		bs, err := json.Marshal(objs[i].Object)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = ctlconf.NewConfFromResources([]ctlres.Resource{ctlres.MustNewResourceFromBytes(bs)})
		if (err != nil) != wantErr {
			t.Fatalf("kapp reading %s: %v, want an error: %v", objs[i].GetName(), err, wantErr)
		}
	}
	got, err := Check(Options{Rules: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, file, []want{
		{Warning, 1, "kapp reads only the first document of data.config.yml and ignores the 1 document after it", "one Config"},
		{Warning, 11, "allMatcher", ""},
		{Error, 15, "ConfigMap labelled kapp.k14s.io/config holds apiVersion v1 kind ConfigMap first in data.config.yml: kapp rejects it (the first document is the one kapp reads: a kapp Config, apiVersion kapp.k14s.io/v1alpha1, kind Config)", ""},
	})
}

// A matcher of a kind no desired object has reads its kind with its article: "no desired object
// is a Ingress" (newcomer16 N16-5).
func TestNoDesiredObjectOfTheKind(t *testing.T) {
	dir := t.TempDir()
	desired := filepath.Join(dir, "desired.yaml")
	os.WriteFile(desired, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: app}\n"), 0o644)
	rules := filepath.Join(dir, "rules.yml")
	os.WriteFile(rules, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- path: [spec, ingressClassName]
  type: copy
  sources: [existing, new]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: networking.k8s.io/v1, kind: Ingress}
`), 0o644)
	got, err := Check(optionsFor(t, []string{rules}, inputs{desired: []string{desired}}))
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, rules, []want{{Warning, 8, "apiVersionKindMatcher {apiVersion: networking.k8s.io/v1, kind: Ingress} matches none of the desired objects",
		"no desired object is an Ingress: remove the matcher if the package no longer ships one"}})
}

// A finding whose line is not known (0) names the file alone in every format: no "rules.yml:0",
// "line=0" or "line": 0, which is no line (issue 24).
func TestNoLineIsNotLine0(t *testing.T) {
	fs := []Finding{{Severity: Warning, File: "rules.yml", Rule: -1, Message: "m"}}
	for f, want := range map[Format]string{
		FormatText:   "rules.yml: warning: m\n",
		FormatGitHub: "::warning file=rules.yml::m\n",
		FormatJSON:   "{\n  \"version\": 1,\n  \"findings\": [\n    {\n      \"severity\": \"warning\",\n      \"file\": \"rules.yml\",\n      \"rule\": -1,\n      \"message\": \"m\",\n      \"suggestion\": \"\"\n    }\n  ]\n}\n",
	} {
		var b strings.Builder
		if err := Write(&b, fs, f); err != nil || b.String() != want {
			t.Errorf("%s: %v\n%q\nwant\n%q", f, err, b.String(), want)
		}
	}
}
