package generator_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

const envWeb = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.25
        env:
        - name: POD_NAME
          valueFrom:
            fieldRef: {fieldPath: metadata.name}
`

// A pull request inserting a list item first, under the rules generated before it: kapp's copy
// paths select items by index ({allIndexes: true}), so the item Git inserted takes the values the
// live object holds in the item that was first. The oracle is kapp v0.66.0's deploy (the object
// its update applies) beside the API server's own defaulting and validation of the manifest: a
// sidecar with an untagged image gets the app container's imagePullPolicy IfNotPresent where the
// server defaults Always; an env var with a value gets the next one's
// valueFrom.fieldRef.apiVersion, an object the server refuses. check called both residual ghost
// diffs of the displaced item (exit 3, the cause unnamed); it names each value written onto
// another item, the rule and the item it comes from, failing the gate (newcomer10 N10-9).
func TestIndexCopyOntoAnInsertedItemIsNamed(t *testing.T) {
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", envWeb))
	rules, _ := generatedRules(t, generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", envWeb)}, Live: []string{live}, Namespace: "shop"})
	sidecar := strings.Replace(envWeb, "      - name: app\n", "      - name: sidecar\n        image: busybox\n      - name: app\n", 1)
	for _, tc := range []struct {
		name, manifest, path, from string
		wrong                      func(t *testing.T, applied map[string]any)
	}{{
		name:     "container",
		manifest: sidecar,
		path:     "spec.template.spec.containers[name=sidecar].imagePullPolicy",
		from:     "spec.template.spec.containers[name=app].imagePullPolicy",
		wrong: func(t *testing.T, applied map[string]any) {
			d := kapptest.DefaultedDeployment(t, applied)
			got := d.Spec.Template.Spec.Containers[0]
			want := kapptest.DefaultedDeployment(t, manifestOf(t, sidecar)).Spec.Template.Spec.Containers[0]
			if got.Name != "sidecar" || got.ImagePullPolicy == want.ImagePullPolicy {
				t.Fatalf("oracle: kapp applies %s with imagePullPolicy %s, the API server defaults %s: not the case the test is about", got.Name, got.ImagePullPolicy, want.ImagePullPolicy)
			}
		},
	}, {
		name:     "env",
		manifest: strings.Replace(envWeb, "        - name: POD_NAME\n", "        - name: MODE\n          value: fast\n        - name: POD_NAME\n", 1),
		path:     "spec.template.spec.containers[name=app].env[name=MODE].valueFrom.fieldRef.apiVersion",
		from:     "spec.template.spec.containers[name=app].env[name=POD_NAME].valueFrom.fieldRef.apiVersion",
		wrong: func(t *testing.T, applied map[string]any) {
			refused := kapptest.DeploymentRefused(t, applied, "shop")
			if refused == nil || !strings.Contains(refused.Error(), "env[0].valueFrom") {
				t.Fatalf("oracle: the API server's validation does not refuse the object kapp applies as the test expects: %v", refused)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{Desired: []string{writeFile(t, "pr.yaml", tc.manifest)}, Live: []string{live}, Namespace: "shop"}
			updated := false
			for _, ch := range kapptest.Changes(t, in.Desired, in.Live[0], in.Namespace, []string{rules}, false) {
				if ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == "Deployment" {
					updated = true
					tc.wrong(t, ch.NewResource().UnstructuredObject())
				}
			}
			if !updated {
				t.Fatal("oracle: kapp's deploy does not update the Deployment")
			}
			c, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range c.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindHidden && f.Path == tc.path {
					found = true
					if !f.Fails || !strings.Contains(f.Evidence, "rules.yml:") || !strings.Contains(f.Evidence, tc.from) || !strings.Contains(f.Evidence, "copies by index") {
						t.Errorf("check: %s: fails %v, evidence %q; want it failing, naming the rule, %s and the copy by index", f.Path, f.Fails, f.Evidence, tc.from)
					}
				}
			}
			if !found {
				t.Errorf("check: no finding at %s (the value kapp's copy by index writes there from %s); findings: %v", tc.path, tc.from, c.Findings(verdict.Gate{}))
			}
		})
	}
}

// manifestOf decodes one manifest.
func manifestOf(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const rbacAndLimits = `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: reader
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- kind: ServiceAccount
  name: web
- kind: User
  name: alice@example.com
---
apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
spec:
  limits:
  - type: Container
    max: {cpu: "1", memory: 512Mi}
`

// byIndexRules copy the defaults of rbacAndLimits' items by index, as generate wrote them before
// it copied them into the same item only (TestGeneratedCopyFollowsTheItem).
const byIndexRules = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- paths:
  - [subjects, {allIndexes: true}, apiGroup]
  type: copy
  sources: [new, existing]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding}
- paths:
  - [spec, limits, {allIndexes: true}, default]
  - [spec, limits, {allIndexes: true}, defaultRequest]
  type: copy
  sources: [new, existing]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: v1, kind: LimitRange}
`

// The same through a list without merge keys (RoleBinding subjects, LimitRange limits): the
// generated copy by index of the server's default of one item (a User subject's apiGroup, a
// Container limit's default and defaultRequest) lands, once Git inserts an item first, on
// another item, where the API server refuses it (kapp's deploy fails). The oracle is kapp
// v0.66.0's deploy (the object its update applies) and the API server's own validation of it
// (ValidateRoleBindingUpdate, ValidateLimitRange). check called these PRs pending, exit 0; it
// names the value written onto another item, failing the gate (newcomer12 N12-2).
func TestIndexCopyThroughAnAtomicListIsNamed(t *testing.T) {
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", rbacAndLimits))
	// the copies by index generate wrote before it copied these defaults by item (fix30f)
	rules := writeFile(t, "rules.yml", byIndexRules)
	for _, tc := range []struct {
		name, kind, manifest, path, refused string
	}{{
		name: "subject", kind: "RoleBinding",
		manifest: strings.Replace(rbacAndLimits, "subjects:\n", "subjects:\n- kind: ServiceAccount\n  name: metrics\n", 1),
		path:     "subjects[1].apiGroup", refused: "subjects[1].apiGroup",
	}, {
		name: "limit", kind: "LimitRange",
		manifest: strings.Replace(rbacAndLimits, "  limits:\n", "  limits:\n  - type: Pod\n    max: {cpu: \"2\", memory: 1Gi}\n", 1),
		path:     "spec.limits[0].default.cpu", refused: "spec.limits[0].default",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{Desired: []string{writeFile(t, "pr.yaml", tc.manifest)}, Live: []string{live}, Namespace: "shop"}
			updated := false
			for _, ch := range kapptest.Changes(t, in.Desired, in.Live[0], in.Namespace, []string{rules}, false) {
				if ch.Op() != ctldiff.ChangeOpUpdate || ch.NewResource().Kind() != tc.kind {
					continue
				}
				updated = true
				var refused error
				if tc.kind == "RoleBinding" {
					refused = kapptest.RoleBindingUpdateRefused(t, ch.NewResource().UnstructuredObject(), ch.ExistingResource().UnstructuredObject())
				} else {
					refused = kapptest.LimitRangeRefused(t, ch.NewResource().UnstructuredObject())
				}
				if refused == nil || !strings.Contains(refused.Error(), tc.refused) {
					t.Fatalf("oracle: the API server's validation does not refuse %s in the object kapp applies: %v", tc.refused, refused)
				}
			}
			if !updated {
				t.Fatalf("oracle: kapp's deploy does not update the %s", tc.kind)
			}
			c, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range c.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindHidden && f.Path == tc.path {
					found = true
					// the value is another item's (misplaced), or the server's default for what kapp
					// last applied at that index (a removal made in Git the copy hides): both fail
					misplaced := strings.Contains(f.Evidence, "another item's value") && strings.Contains(f.Evidence, "copies by index")
					redefaulted := strings.Contains(f.Evidence, "the API server's default for kapp's last apply")
					if !f.Fails || !strings.Contains(f.Evidence, "rules.yml:") || !misplaced && !redefaulted {
						t.Errorf("check: %s: fails %v, evidence %q; want it failing, naming the rule and why the value is not this item's", f.Path, f.Fails, f.Evidence)
					}
				}
			}
			if !found {
				t.Errorf("check: no finding at %s (another item's value kapp's copy by index writes there); findings: %v", tc.path, c.Findings(verdict.Gate{}))
			}
		})
	}
}

// generate copies a server default chosen by the item's own fields (a User subject's apiGroup, a
// Container limit's default and defaultRequest, made from its max) into the same item only,
// wherever it stands, and only while the item is the live one: kapp v0.66.0's deploy of a PR
// inserting an item first applies an object the API server's validation accepts, and a PR
// changing a limit's max gets the server's new default (pending), not the old one beside the new
// max, which the API server refuses. Before, generate wrote copies by index (byIndexRules): the
// deploys of both PRs were refused (newcomer12 N12-2, N12-1).
func TestGeneratedCopyFollowsTheItem(t *testing.T) {
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", rbacAndLimits))
	rules, _ := generatedRules(t, generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", rbacAndLimits)}, Live: []string{live}, Namespace: "shop"})
	// the README says how such a rule reads (its comment) and that these defaults are no plain
	// copy by index
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const byItem = "into the same item, wherever it stands"
	data, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if text := string(data); strings.Count(text, byItem) != 3 || strings.Contains(text, "{allIndexes: true}, apiGroup]") || strings.Contains(text, "{allIndexes: true}, default]") ||
		!strings.Contains(string(readme), "`"+byItem+"` in its comment") || !strings.Contains(string(readme), "RoleBinding `User` subject's `apiGroup`") {
		t.Errorf("the generated rules copy the subjects' apiGroup and the limits' default and defaultRequest otherwise than the README says (%q, no copy by index):\n%s", byItem, text)
	}
	for _, tc := range []struct{ name, manifest, kind string }{
		{"kept", rbacAndLimits, ""},
		{"subject first", strings.Replace(rbacAndLimits, "subjects:\n", "subjects:\n- kind: ServiceAccount\n  name: metrics\n", 1), "RoleBinding"},
		{"limit first", strings.Replace(rbacAndLimits, "  limits:\n", "  limits:\n  - type: Pod\n    max: {cpu: \"2\", memory: 1Gi}\n", 1), "LimitRange"},
		{"max down", strings.Replace(rbacAndLimits, `max: {cpu: "1", memory: 512Mi}`, `max: {cpu: 500m, memory: 512Mi}`, 1), "LimitRange"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{Desired: []string{writeFile(t, "pr.yaml", tc.manifest)}, Live: []string{live}, Namespace: "shop"}
			var updated []string
			for _, ch := range kapptest.Changes(t, in.Desired, in.Live[0], in.Namespace, []string{rules}, false) {
				if ch.Op() != ctldiff.ChangeOpUpdate {
					continue
				}
				k := ch.NewResource().Kind()
				updated = append(updated, k)
				var refused error
				switch k {
				case "RoleBinding":
					refused = kapptest.RoleBindingUpdateRefused(t, ch.NewResource().UnstructuredObject(), ch.ExistingResource().UnstructuredObject())
				case "LimitRange":
					refused = kapptest.LimitRangeRefused(t, ch.NewResource().UnstructuredObject())
				}
				if refused != nil {
					t.Errorf("oracle: the API server refuses the %s kapp's deploy applies under the generated rules: %v", k, refused)
				}
			}
			if want := []string{tc.kind}; tc.kind == "" && len(updated) > 0 || tc.kind != "" && !slices.Equal(updated, want) {
				t.Fatalf("oracle: kapp's deploy updates %v; want %q only", updated, tc.kind)
			}
			c, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range c.Findings(verdict.Gate{}) {
				if f.Fails {
					t.Errorf("check: failing finding %s %s: %s", f.Kind, f.Path, f.Evidence)
				}
			}
		})
	}
}
