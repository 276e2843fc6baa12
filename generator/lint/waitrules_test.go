package lint

import "testing"

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
