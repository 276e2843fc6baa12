package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// A Package's kapp rawOptions kapp-controller v0.51.0 passes to kapp deploy after its own
// (pkg/deploy/kapp.go addDeployArgs; the last value of a flag is kapp's, pflag) changed what
// kapp does and were judged as if absent (issue 23). --apply-default-update-strategy is the
// strategy of an object whose manifest names none (kapp v0.66.0 clusterapply
// AddOrUpdateChange.ApplyStrategy, read by hand): under always-replace any change to a CRD
// deletes it and every custom resource of it, under fallback-on-replace a change the API server
// refuses does; check said "pending", or "fails" without naming the replacement. The oracle of
// the refusal is the apiextensions apiserver's registry strategy (serverCRDUpdateErrors).
func TestPackageDefaultUpdateStrategyReplacesTheCRD(t *testing.T) {
	v1 := crdVersion("v1", true, true, false)
	described := strings.Replace(v1, "note: {type: string}", "note: {type: string, description: free text}", 1)
	for _, tc := range []struct {
		name, options, scope, version string
		refused, fails                bool
		evidence                      []string
	}{
		{"no rawOption, a field changed", "", "Namespaced", described, false, false, nil},
		{"always-replace, a field changed", "[--apply-default-update-strategy=always-replace]", "Namespaced", described, false, true,
			[]string{"kapp deploy's --apply-default-update-strategy=always-replace (", "rawOptions[0]", "every custom resource of it", "remove that rawOption"}},
		{"fallback-on-replace after always-replace, a field changed", "[--apply-default-update-strategy=always-replace, --apply-default-update-strategy=fallback-on-replace]", "Namespaced", described, false, false, nil},
		{"fallback-on-replace, the scope changed", "[--apply-default-update-strategy=fallback-on-replace]", "Cluster", v1, true, true,
			[]string{"spec.scope", "kapp deploy's --apply-default-update-strategy=fallback-on-replace (", "every custom resource of it"}},
		{"fallback-on-replace, a change the server accepts", "[--apply-default-update-strategy=fallback-on-replace]", "Namespaced", described, false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			liveCRD := replacedCRD("", "Namespaced", v1)
			desired := replacedCRD("", tc.scope, tc.version)
			live := kappApplied(t, liveCRD, func(o map[string]any) {
				o["status"] = map[string]any{"storedVersions": []any{"v1"},
					"acceptedNames": map[string]any{"kind": "Vault", "plural": "vaults", "singular": "vault", "listKind": "VaultList"},
					"conditions":    []any{map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"}}}
			})
			if errs := serverCRDUpdateErrors(t, live, desired); (len(errs) > 0) != tc.refused {
				t.Fatalf("oracle: the server's errors on the update %v; the case says refused: %v", errs, tc.refused)
			}
			deploy := "      - kapp: {}\n"
			if tc.options != "" {
				deploy = "      - kapp:\n          rawOptions: " + tc.options + "\n"
			}
			cr := "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata: {name: vaults.rebasegen.dev.1.0.0}\nspec:\n  refName: vaults.rebasegen.dev\n  version: 1.0.0\n  template:\n    spec:\n      fetch:\n      - inline:\n          paths:\n            config/crd.yml: |\n" +
				"              " + strings.ReplaceAll(strings.TrimSuffix(desired, "\n"), "\n", "\n              ") + "\n" + "      template:\n      - ytt:\n          paths:\n          - config\n      deploy:\n" + deploy
			in := generator.Inputs{Live: []string{writeFile(t, "live.yaml", live)}, Namespace: "vaults",
				Package: yttrender.Package{CR: writeFile(t, "package.yml", cr)}, CRDUpdate: apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			var failing []verdict.Finding
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Resource.Kind == "CustomResourceDefinition" && f.Fails && f.Kind != verdict.KindResidual { // no rules: kapp's annotations {} left
					failing = append(failing, f)
				}
			}
			if (len(failing) > 0) != tc.fails {
				t.Fatalf("check: failing findings on the CRD %v, want failing: %v", failing, tc.fails)
			}
			for _, f := range failing {
				for _, e := range tc.evidence {
					if !strings.Contains(f.Evidence, e) {
						t.Errorf("check: %s %s: want %q in %s", f.Kind, f.Path, e, f.Evidence)
					}
				}
			}
		})
	}
}

// kapp deploy --wait=false waits on nothing it applies (kapp v0.66.0 clusterapply
// ClusterChange.WaitOp, read by hand), so a wait rule kapp would fail to wait with fails no
// deploy; check said it did (issue 23). The last --wait given is kapp's.
func TestPackageWaitFalseNoWaitRuleFailsTheDeploy(t *testing.T) {
	pkg := filepath.Join("..", "fixtures", "packages", "hpa-web")
	data, err := os.ReadFile(filepath.Join(pkg, "package.yml"))
	if err != nil {
		t.Fatal(err)
	}
	config := writeFile(t, "config.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nwaitRules:\n- resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n  ytt: {}\n")
	for _, c := range []struct {
		options string
		fails   bool
	}{
		{"", true},
		{"[--wait=false]", false},
		{"[--wait=false, --wait=true]", true},
	} {
		cr := string(data)
		if c.options != "" {
			cr = strings.Replace(cr, "      - kapp: {}\n", "      - kapp:\n          rawOptions: "+c.options+"\n", 1)
		}
		in := generator.Inputs{Live: []string{filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")}, Namespace: "hpa-replicas",
			Package: yttrender.Package{CR: writeFile(t, "package.yml", cr), ValuesFiles: []string{filepath.Join(pkg, "values.yml")}}}
		ch, err := generator.Check(in, []string{config})
		if err != nil {
			t.Fatal(err)
		}
		var waits []string
		for _, f := range ch.Findings(verdict.Gate{}) {
			if f.Kind == verdict.KindDeployFails && strings.Contains(f.Evidence, "waiting on it") {
				waits = append(waits, f.Evidence)
			}
		}
		if (len(waits) > 0) != c.fails {
			t.Errorf("%q: deploy failing on a wait rule %v, want %v", c.options, waits, c.fails)
		}
	}
}
