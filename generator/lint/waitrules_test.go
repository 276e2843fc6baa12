package lint

import (
	"os"
	"path/filepath"
	"testing"
)

// A wait rule kapp v0.66.0 fails to wait with, whatever the cluster holds, linted with 0 errors
// (probe20 P20-2, issue 23): a ytt without funcContractV1 (kapp dereferences it and panics:
// resourcesmisc/custom_waiting_resource.go), starlark that does not load (an undefined name, no
// is_done). kapp checks neither when it reads the Config.
func TestWaitRulesKappFailsWith(t *testing.T) {
	const head = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nwaitRules:\n- resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n" // ytt on line 6
	cases := []struct {
		name, rules string
		want        []want
	}{
		{"undefined name", `  ytt:
    funcContractV1:
      resource.star: |
        def is_done(resource):
            return {"done": True, "successful": undefined_name}
        end`,
			[]want{{Error, 6, "its funcContractV1 resource.star does not load in ytt, so kapp v0.66.0's wait on a resource the rule matches fails (Error: Applying ytt wait rule): Evaluating starlark template: - undefined: undefined_name", "is_done(resource)"}}},
		{"no is_done", `  ytt:
    funcContractV1:
      resource.star: ""`,
			[]want{{Error, 6, "is_done not found in module resource.star", ""}}},
		{"ytt without funcContractV1", `  ytt: {}`,
			[]want{{Error, 6, "waitRules[0]: every deploy creating, changing or keeping a resource it is the first wait rule to match fails: ytt without funcContractV1: kapp v0.66.0 panics", "funcContractV1"}}},
		{"loads", `  ytt:
    funcContractV1:
      resource.star: |
        def is_done(resource):
            return {"done": True, "successful": True}
        end`, nil},
		{"empty matcher", `  - {}
  conditionMatchers: []`, []want{{Error, 6, "empty matcher: kapp panics", ""}}},
		{"conditions", `  conditionMatchers:
  - {type: Available, status: "True", success: true}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assertLinted(t, head+c.rules+"\n", c.want) })
	}
}

// A wait rule matching only resources kapp's deploy does not apply linted without a word (issue
// 23): kapp evaluates a wait rule on each resource of its changes only (clusterapply
// ConvergedResourceFactory.New: the custom waiting resource is built from the change's resource,
// the associated ones going only to kapp's own waiters), so a rule on the ReplicaSets or Pods of a
// Deployment, or on a kind the package does not ship, never applies.
func TestWaitRuleMatchingNothingDeployed(t *testing.T) {
	dir := t.TempDir()
	desired := filepath.Join(dir, "desired.yaml")
	if err := os.WriteFile(desired, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: app}\nspec: {replicas: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const head = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nwaitRules:\n- conditionMatchers:\n  - {type: Available, status: \"True\", success: true}\n  resourceMatchers:\n" // matchers on line 6
	for _, c := range []struct {
		name, matchers string
		want           []want
	}{
		{"the Deployment's ReplicaSets", "  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: ReplicaSet}\n",
			[]want{{Warning, 6, "waitRules[0]: its resourceMatchers match none of the desired objects, so the rule never applies", "remove the rule"}}},
		{"pods by name", "  - kindNamespaceNameMatcher: {kind: Pod, namespace: app, name: web-0}\n  - apiVersionKindMatcher: {apiVersion: batch/v1, kind: Job}\n",
			[]want{{Warning, 6, "never on those it lists as associated with them", ""}}},
		{"the Deployment", "  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n", nil},
		{"one of two", "  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: ReplicaSet}\n  - kindNamespaceNameMatcher: {kind: Deployment, namespace: app, name: web}\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rules := filepath.Join(t.TempDir(), "config.yml")
			if err := os.WriteFile(rules, []byte(head+c.matchers), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Check(optionsFor(t, []string{rules}, inputs{desired: []string{desired}}))
			if err != nil {
				t.Fatal(err)
			}
			assertFindings(t, got, rules, c.want)
		})
	}
}
