package lint

import "testing"

// A Config's preflightRules kapp v0.66.0's deploy refuses before it applies anything (probe20
// P20-8, issue 23): an unknown name, a name given twice (named at the second), a check's config it
// does not know. The messages are kapp's registry's (preflight/registry.go, permissions).
func TestPreflightRulesKappRefuses(t *testing.T) {
	const head = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\npreflightRules:\n" // rules from line 4
	for _, c := range []struct {
		name, rules string
		want        []want
	}{
		{"unknown name", "- name: noSuchCheck\n  config: {}\n", []want{{Error, 4, `preflightRules[0] (config {}, name noSuchCheck): a deploy with changes fails on it in kapp before it applies anything: preflight configuration settings failed: unknown preflight check in configuration: "noSuchCheck"`, "PermissionValidation, CRDUpgradeSafety"}}},
		{"twice", "- name: PermissionValidation\n- name: CRDUpgradeSafety\n- name: PermissionValidation\n", []want{{Error, 6, `preflightRules[2] (name PermissionValidation): a deploy with changes fails on it in kapp before it applies anything: preflight configuration settings failed: duplicate preflight check in configuration: "PermissionValidation"`, ""}}},
		{"unknown validator type", "- name: PermissionValidation\n  config: {permissionValidatorResource: NoSuchReview}\n", []want{{Error, 4, `unknown permissionValidatorType "NoSuchReview"`, ""}}},
		{"known", "- name: PermissionValidation\n- name: CRDUpgradeSafety\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) { assertLinted(t, head+c.rules, c.want) })
	}
}
