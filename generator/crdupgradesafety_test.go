package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	cus "carvel.dev/kapp/pkg/kapp/crdupgradesafety"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A package Config enabling kapp's CRDUpgradeSafety preflight check (preflightRules) and a CRD
// change the check refuses (an enum added in Git to spec.storage.compression, which had none):
// check said "applied on deploy", exit 0, while kapp v0.66.0's deploy stopped before applying
// anything ("enums added when there were no enum restrictions previously", probe20 P20-8, issue
// 23). The oracle is kapp's own validators (the list crdupgradesafety.NewPreflight builds) called
// here on the live CRD and the manifest's, written by hand; the check runs only where the
// preflight rules name it.
func TestCRDUpgradeSafetyRefusalFailsTheGate(t *testing.T) {
	const compression = "                  compression:\n                    type: string\n                    default: gzip\n"
	const enabled = "---\napiVersion: kapp.k14s.io/v1alpha1\nkind: Config\npreflightRules:\n- name: CRDUpgradeSafety\n"
	for _, c := range []struct {
		name, edit, config string
		unsafe             bool // hand-read: kapp's validators refuse the change
	}{
		{"enum added, check enabled", compression + "                    enum: [gzip, zstd]\n", enabled, true},
		{"enum added, check not named", compression + "                    enum: [gzip, zstd]\n", "", true},
		{"optional field added, check enabled", compression + "                  level:\n                    type: integer\n", enabled, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture("crd-defaults")
			rules, _ := generatedRules(t, in)
			manifest, err := os.ReadFile(in.Desired[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(manifest), compression) {
				t.Fatal("the fixture's CRD has no plain spec.storage.compression")
			}
			in.Desired = []string{writeFile(t, "desired.yaml", strings.Replace(string(manifest), compression, c.edit, 1)+c.config)}

			kerr := kappValidators().Validate(typedCRD(t, in.Live[0]), typedCRD(t, in.Desired[0]))
			if (kerr != nil) != c.unsafe {
				t.Fatalf("kapp's validators: %v, the case says refused %v", kerr, c.unsafe)
			}

			got := deployFails(t, in, []string{rules})
			if want := c.unsafe && c.config != ""; (len(got) > 0) != want {
				t.Fatalf("kapp's deploy fails: %v (%v), check's findings: %v", want, kerr, got)
			}
			for _, f := range got {
				for _, line := range strings.Split(kerr.Error(), "\n") {
					if !f.Fails || f.Resource.String() != "apiextensions.k8s.io/CustomResourceDefinition backups.crd-defaults.rebasegen.dev" || !strings.Contains(f.Evidence, line) || !strings.Contains(f.Evidence, "CRDUpgradeSafety") {
						t.Errorf("want a failing finding on the CRD with kapp's reason %q, got (fails %v) %s %s", line, f.Fails, f.Resource, f.Evidence)
					}
				}
			}
		})
	}
}

// kappValidators are kapp v0.66.0's CRD upgrade safety validations, as crdupgradesafety.NewPreflight lists them.
func kappValidators() *cus.Validator {
	return &cus.Validator{Validations: []cus.Validation{
		cus.NewValidationFunc("NoScopeChange", cus.NoScopeChange),
		cus.NewValidationFunc("NoStoredVersionRemoved", cus.NoStoredVersionRemoved),
		cus.NewValidationFunc("NoExistingFieldRemoved", cus.NoExistingFieldRemoved),
		&cus.ChangeValidator{Validations: []cus.ChangeValidation{
			cus.EnumChangeValidation, cus.RequiredFieldChangeValidation, cus.MinimumChangeValidation,
			cus.MinimumItemsChangeValidation, cus.MinimumLengthChangeValidation, cus.MinimumPropertiesChangeValidation,
			cus.MaximumChangeValidation, cus.MaximumLengthChangeValidation, cus.MaximumItemsChangeValidation,
			cus.MaximumPropertiesChangeValidation, cus.DefaultValueChangeValidation,
		}},
	}}
}

// typedCRD is the CustomResourceDefinition of file.
func typedCRD(t *testing.T, file string) apiextv1.CustomResourceDefinition {
	t.Helper()
	for _, o := range objects(t, file, "") {
		if o.GetKind() == "CustomResourceDefinition" {
			var crd apiextv1.CustomResourceDefinition
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &crd); err != nil {
				t.Fatal(err)
			}
			return crd
		}
	}
	t.Fatalf("no CRD in %s", filepath.Base(file))
	return apiextv1.CustomResourceDefinition{}
}
