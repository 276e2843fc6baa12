package generator_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// keepVersionRule puts the live reference back wherever kapp's templateRules wrote a versioned
// name into a container's envFrom (probe11 P11-3's keepver.yml): a new version of the ConfigMap
// never reaches the Deployment.
const keepVersionRule = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:data", "data")
        #@ load("@ytt:json", "json")
        #@ load("@ytt:overlay", "overlay")
        #@ def keep(left, right):
        #@   obj = json.decode(json.encode(left))
        #@   if data.values.existing == None:
        #@     return obj
        #@   end
        #@   ex = json.decode(json.encode(data.values.existing))
        #@   for i, c in enumerate(obj["spec"]["template"]["spec"]["containers"]):
        #@     for j, e in enumerate(c.get("envFrom") or []):
        #@       n = e.get("configMapRef", {}).get("name", "")
        #@       if "-ver-" in n:
        #@         e["configMapRef"]["name"] = ex["spec"]["template"]["spec"]["containers"][i]["envFrom"][j]["configMapRef"]["name"]
        #@       end
        #@     end
        #@   end
        #@   return obj
        #@ end
        #@overlay/match by=overlay.all
        #@overlay/replace via=keep
        ---
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`

// TestVersionedReferenceAsKappDeploysIt (probe11 P11-3): kapp's templateRules write the name of
// the version this deploy gives a versioned ConfigMap into the Deployment's reference (cfg
// becomes cfg-ver-1, cfg-ver-2 once the ConfigMap changes in Git). A rule putting the live
// reference back wherever kapp wrote a versioned name passed check, exit 0, at the pull request
// adding it and at the one changing the ConfigMap, which check said "this deploy applies" while
// kapp keeps the Deployment on cfg-ver-1; and the unchanged manifests' cfg was called a pending
// change kapp applies, where kapp keeps the Deployment. The oracle is kapp's deploy
// (kappChanges): check reports the reference hidden exactly where kapp, on the ConfigMap's
// change, keeps the Deployment under the rules and updates it without them, and pending exactly
// where kapp updates the Deployment under the rules.
func TestVersionedReferenceAsKappDeploysIt(t *testing.T) {
	v1, v2, in := versionedRefInputs(t, "k: v1", "k: v2")
	keep := writeFile(t, "keepver.yml", keepVersionRule)
	// a rule for another kind: check judges the manifests under kapp's built-in rules alone
	none := writeFile(t, "none.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing]\n  paths: [[spec]]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: v1, kind: Service}\n")
	updates := func(desired, rules string) bool { // kapp's deploy updates the Deployment, under both bases
		for _, against := range []bool{true, false} {
			found := false
			for _, ch := range kappChanges(t, in(desired), []string{rules}, against) {
				if ch.NewOrExistingResource().Kind() == "Deployment" {
					found = ch.Op() == ctldiff.ChangeOpUpdate
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	if !updates(v2, none) || updates(v1, none) {
		t.Fatal("kapp's deploy of the ConfigMap's change does not update the Deployment, or it updates the unchanged one")
	}
	const ref = "apps/Deployment versioned-ref/web spec.template.spec.containers[name=web].envFrom[0].configMapRef.name"
	for _, tc := range []struct{ name, desired, rules string }{
		{"rule PR", v1, keep},
		{"ConfigMap PR", v2, keep},
		{"unchanged", v1, none},
		{"ConfigMap PR without the rule", v2, none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := generator.Check(in(tc.desired), []string{tc.rules})
			if err != nil {
				t.Fatal(err)
			}
			hidden, pending := false, false
			for _, h := range c.Verdict.Hidden {
				hidden = hidden || h.String() == ref
			}
			for _, p := range c.Verdict.Pending {
				pending = pending || p.Resource.String()+" "+p.Finding.Path.String() == ref
			}
			wantHidden := !updates(v2, tc.rules) // the ConfigMap's change in Git kept from the Deployment
			if hidden != wantHidden {
				t.Errorf("the reference hidden: %v, want %v (kapp keeps the Deployment on the ConfigMap's change: %v)", hidden, wantHidden, wantHidden)
			}
			if want := updates(tc.desired, tc.rules); pending != want {
				t.Errorf("the reference a pending change this deploy applies: %v, want %v (kapp's deploy updates the Deployment: %v)", pending, want, want)
			}
		})
	}
}

// TestRuleNamingAVersionIsJudged (probe12 P12-3): kapp matches its rules on a versioned
// resource under the names it gives it, not the manifest's: the rebase under the live
// NAME-ver-N (kapp's built-in rules copy the live metadata, name included, first), the new
// version's diff under NAME-ver-(N+1). A rule naming cfg-ver-1, as it appears live, was ruled out
// by the manifest's name cfg and never judged: check passed (exit 0) a rule keeping every change
// of the ConfigMap from the deploy. The oracle is kapp's deploy of the ConfigMap changed in Git
// (kappChanges): the data change is hidden exactly where kapp then creates no new version under
// the rule, and does without it.
func TestRuleNamingAVersionIsJudged(t *testing.T) {
	v1, v2, in := versionedRefInputs(t, "k: v1", "k: v2")
	const config = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n"
	newVersion := func(rules string) bool {
		return kappMakesBoth(t, in(v2), rules, func(ch ctldiff.Change) bool {
			return ch.Op() == ctldiff.ChangeOpAdd && ch.NewResource().Name() == "cfg-ver-2"
		})
	}
	copyData := func(name string) string {
		return config + "rebaseRules:\n- type: copy\n  sources: [existing]\n  paths: [[data]]\n  resourceMatchers:\n" +
			"  - kindNamespaceNameMatcher: {kind: ConfigMap, namespace: versioned-ref, name: " + name + "}\n"
	}
	for _, tc := range []struct{ name, rule string }{
		{"the live version", copyData("cfg-ver-1")},
		{"the next version", copyData("cfg-ver-2")}, // the rebased object holds the live name
		{"a name kapp gives no version", copyData("cfg-ver-3")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := writeFile(t, "rules.yml", tc.rule)
			if !newVersion(writeFile(t, "none.yml", config)) {
				t.Fatal("kapp's deploy of the ConfigMap's change creates no new version without the rule")
			}
			wantHidden := !newVersion(rules)
			hidden, all := checkHides(t, in(v1), rules, "core/ConfigMap versioned-ref/cfg data.k")
			if hidden != wantHidden {
				t.Errorf("data.k hidden: %v, want %v (kapp's deploy keeps the ConfigMap's change from Git under the rule: %v); hidden %v", hidden, wantHidden, wantHidden, all)
			}
		})
	}
}

// versionedRefInputs are the manifests of the versioned-reference capture as deployed (v1.yaml)
// and with old replaced by new, and check's inputs of either against the capture.
func versionedRefInputs(t *testing.T, old, new string) (v1, changed string, in func(desired string) generator.Inputs) {
	t.Helper()
	dir := filepath.Join("testdata", "versioned-reference")
	v1 = filepath.Join(dir, "v1.yaml")
	manifest, err := os.ReadFile(v1)
	if err != nil {
		t.Fatal(err)
	}
	changed = writeFile(t, "changed.yaml", strings.Replace(string(manifest), old, new, 1))
	return v1, changed, func(desired string) generator.Inputs {
		return generator.Inputs{Desired: []string{desired}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "versioned-ref"}
	}
}

// kappMakesBoth reports whether kapp's deploy of in with the rule file makes a change want holds,
// under both bases.
func kappMakesBoth(t *testing.T, in generator.Inputs, rules string, want func(ctldiff.Change) bool) bool {
	t.Helper()
	for _, against := range []bool{true, false} {
		if !slices.ContainsFunc(kappChanges(t, in, []string{rules}, against), want) {
			return false
		}
	}
	return true
}

// checkHides reports whether check of in with the rule file finds field ("Kind namespace/name
// path") hidden, with all it finds hidden.
func checkHides(t *testing.T, in generator.Inputs, rules, field string) (bool, []verdict.Hidden) {
	t.Helper()
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(c.Verdict.Hidden, func(h verdict.Hidden) bool { return h.String() == field }), c.Verdict.Hidden
}
