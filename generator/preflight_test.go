package generator_test

import (
	"fmt"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	"carvel.dev/kapp/pkg/kapp/crdupgradesafety"
	"carvel.dev/kapp/pkg/kapp/permissions"
	"carvel.dev/kapp/pkg/kapp/preflight"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
)

// A package Config's preflightRules kapp v0.66.0 refuses (an unknown name, a name given twice, a
// check's config it does not know) passed check, exit 0, while kapp's deploy of the image bump
// failed before applying anything ("preflight configuration settings failed") (probe20 P20-8,
// issue 23). The oracle is kapp's own: its preflight registry as cmd/kapp.go builds it, set from
// the Config's rules as cmd/app/deploy.go does; kapp sets it only for a deploy with changes (read
// by hand: hasNoChanges returns first), which the generated rules leave none of.
func TestPreflightRulesKappRefusesFailTheGate(t *testing.T) {
	for _, c := range []struct {
		name  string
		rules string
		line  int // of the rule named, in the Config's file
		kept  bool
	}{
		{"unknown name", "- name: noSuchCheck\n  config: {}\n", 4, false},
		{"twice", "- name: PermissionValidation\n- name: CRDUpgradeSafety\n- name: PermissionValidation\n", 6, false},
		{"unknown validator type", "- name: PermissionValidation\n  config: {permissionValidatorResource: NoSuchReview}\n", 4, false},
		{"known", "- name: PermissionValidation\n- name: CRDUpgradeSafety\n", 0, false},
		{"no change to apply", "- name: noSuchCheck\n", 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			config := writeFile(t, "config.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\npreflightRules:\n"+c.rules)
			in := fixture("hpa-replicas")
			var ruleFiles []string
			if c.kept {
				rules, _ := generatedRules(t, in)
				ruleFiles = []string{rules}
			} else {
				in = imageBumped(t, in)
			}
			in.Desired = append(in.Desired, config)

			objs := objects(t, config, "")
			_, conf, err := ctlconf.NewConfFromResources([]ctlres.Resource{ctlres.NewResourceUnstructured(*objs[0], ctlres.ResourceType{})})
			if err != nil {
				t.Fatal(err)
			}
			registry := preflight.NewRegistry(map[string]preflight.Check{
				"PermissionValidation": permissions.NewPreflight(nil, false),
				"CRDUpgradeSafety":     crdupgradesafety.NewPreflight(nil, false),
			})
			kerr := registry.SetConfig(conf.PreflightRules())
			if want := c.line > 0 || c.kept; (kerr != nil) != want {
				t.Fatalf("kapp's registry: %v, the case says refused %v", kerr, want)
			}

			got := deployFails(t, in, ruleFiles)
			if want := c.line > 0; (len(got) > 0) != want {
				t.Fatalf("kapp's deploy fails: %v (%v), check's findings: %v", want, kerr, got)
			}
			where := fmt.Sprintf("%s:%d, document 1, preflightRules[", config, c.line)
			for _, f := range got {
				if !f.Fails || f.File == "" || !strings.Contains(f.Evidence, where) || !strings.Contains(f.Evidence, kerr.Error()) {
					t.Errorf("want a failing finding located in the manifest naming the rule (%s) and kapp's reason %v, got (fails %v, %s:%d) %s %s", where, kerr, f.Fails, f.File, f.Line, f.Resource, f.Evidence)
				}
			}
		})
	}
}
