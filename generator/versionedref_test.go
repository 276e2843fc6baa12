package generator_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/ytttest"
)

// keepVersionRule puts the live reference back wherever kapp's templateRules wrote a versioned
// name into a container's envFrom (probe11 P11-3's keepver.yml): a new version of the ConfigMap
// never reaches the Deployment.
var keepVersionRule = replaceRule(`for i, c in enumerate(obj["spec"]["template"]["spec"]["containers"]):
  for j, e in enumerate(c.get("envFrom") or []):
    n = e.get("configMapRef", {}).get("name", "")
    if "-ver-" in n:
      e["configMapRef"]["name"] = ex["spec"]["template"]["spec"]["containers"][i]["envFrom"][j]["configMapRef"]["name"]
    end
  end
end`, "apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}")

// TestVersionedReferenceAsKappDeploysIt (probe11 P11-3): kapp's templateRules write the name of
// the version this deploy gives a versioned ConfigMap into the Deployment's reference (cfg
// becomes cfg-ver-1, cfg-ver-2 once the ConfigMap changes in Git). A rule putting the live
// reference back wherever kapp wrote a versioned name passed check, exit 0, at the pull request
// adding it and at the one changing the ConfigMap, which check said "this deploy applies" while
// kapp keeps the Deployment on cfg-ver-1; and the unchanged manifests' cfg was called a pending
// change kapp applies, where kapp keeps the Deployment. The oracle is kapp's deploy
// (kapptest.Changes): check reports the reference hidden exactly where kapp, on the ConfigMap's
// change, keeps the Deployment under the rules and updates it without them, and pending exactly
// where kapp updates the Deployment under the rules.
func TestVersionedReferenceAsKappDeploysIt(t *testing.T) {
	referenceAsKappDeploysIt(t, versionedRef{dir: "versioned-reference", ns: "versioned-ref", kind: "Deployment", keep: keepVersionRule,
		ref: "apps/Deployment versioned-ref/web spec.template.spec.containers[name=web].envFrom[0].configMapRef.name"})
}

// keepExplicitRefRule puts the live kapp.k14s.io/versioned-explicit-ref back wherever kapp wrote
// a versioned name into it: a new version of the ConfigMap never reaches the consumer.
var keepExplicitRefRule = replaceRule(`k = "kapp.k14s.io/versioned-explicit-ref"
ann = obj["metadata"].get("annotations") or {}
if "-ver-" in (ann.get(k) or ""):
  ann[k] = ex["metadata"]["annotations"][k]
end`, "kindNamespaceNameMatcher: {kind: ConfigMap, namespace: versioned-xref, name: consumer}")

// TestExplicitVersionedReferenceAsKappDeploysIt (issue 23, fix25e): kapp writes the version of a
// versioned ConfigMap into a kapp.k14s.io/versioned-explicit-ref annotation naming it as it
// writes a templateRules reference (name: cfg becomes name: cfg-ver-1, re-marshalled). The
// mutation check drew no value naming a version there: a rule putting the live annotation back
// wherever kapp wrote a versioned name passed check, exit 0, at the pull request adding it; and
// the unchanged manifests' annotation was a pending change this deploy applies, where kapp keeps
// the consumer. The oracle, as for templateRules references, is kapp's deploy (kapptest.Changes).
func TestExplicitVersionedReferenceAsKappDeploysIt(t *testing.T) {
	referenceAsKappDeploysIt(t, versionedRef{dir: "versioned-explicit-ref", ns: "versioned-xref", kind: "ConfigMap", keep: keepExplicitRefRule,
		ref: `core/ConfigMap versioned-xref/consumer metadata.annotations["kapp.k14s.io/versioned-explicit-ref"]`})
}

// versionedRef is a capture of a versioned ConfigMap cfg (generator/testdata/dir: v1.yaml as
// kapp deployed it, data k: v1, and live.yaml) referenced by a resource of kind at ref (a
// finding's resource and path), and a rule keeping the live reference wherever kapp writes a
// versioned name into it.
type versionedRef struct{ dir, ns, kind, ref, keep string }

// referenceAsKappDeploysIt: check reports the reference hidden exactly where kapp, on the
// ConfigMap's change (k: v2), keeps the referencing resource under the rules and updates it
// without them, and pending exactly where kapp's deploy updates it under the rules.
func referenceAsKappDeploysIt(t *testing.T, sc versionedRef) {
	v1, v2, in := versionedRefInputs(t, sc.dir, sc.ns, "k: v1", "k: v2")
	keep := writeFile(t, "keep.yml", sc.keep)
	// a rule for another kind: check judges the manifests under kapp's built-in rules alone
	none := writeFile(t, "none.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing]\n  paths: [[spec]]\n  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: v1, kind: Service}\n")
	updates := func(desired, rules string) bool { // kapp's deploy updates the referencing resource, under both bases
		deployed := in(desired)
		return kapptest.MakesBoth(t, deployed.Desired, deployed.Live[0], deployed.Namespace, []string{rules}, func(ch ctldiff.Change) bool {
			return ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == sc.kind
		})
	}
	if !updates(v2, none) || updates(v1, none) {
		t.Fatalf("kapp's deploy of the ConfigMap's change does not update the %s, or it updates the unchanged one", sc.kind)
	}
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
				hidden = hidden || h.String() == sc.ref
			}
			for _, p := range c.Verdict.Pending {
				pending = pending || p.Resource.String()+" "+p.Finding.Path.String() == sc.ref
			}
			wantHidden := !updates(v2, tc.rules) // the ConfigMap's change in Git kept from the referencing resource
			if hidden != wantHidden {
				t.Errorf("the reference hidden: %v, want %v (kapp keeps the %s on the ConfigMap's change: %v)", hidden, wantHidden, sc.kind, wantHidden)
			}
			if want := updates(tc.desired, tc.rules); pending != want {
				t.Errorf("the reference a pending change this deploy applies: %v, want %v (kapp's deploy updates the %s: %v)", pending, want, sc.kind, want)
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
// (kapptest.Changes): the data change is hidden exactly where kapp then creates no new version under
// the rule, and does without it.
func TestRuleNamingAVersionIsJudged(t *testing.T) {
	v1, v2, in := versionedRefInputs(t, "versioned-reference", "versioned-ref", "k: v1", "k: v2")
	const config = "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n"
	newVersion := func(rules string) bool {
		deployed := in(v2)
		return kapptest.MakesBoth(t, deployed.Desired, deployed.Live[0], deployed.Namespace, []string{rules}, func(ch ctldiff.Change) bool {
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

// versionedRefInputs are the manifests of a capture of namespace ns (generator/testdata/dir) as
// deployed (v1.yaml) and with old replaced by new, and check's inputs of either against it.
func versionedRefInputs(t *testing.T, dir, ns, old, new string) (v1, changed string, in func(desired string) generator.Inputs) {
	t.Helper()
	dir = filepath.Join("testdata", dir)
	v1 = filepath.Join(dir, "v1.yaml")
	manifest, err := os.ReadFile(v1)
	if err != nil {
		t.Fatal(err)
	}
	changed = writeFile(t, "changed.yaml", strings.Replace(string(manifest), old, new, 1))
	return v1, changed, func(desired string) generator.Inputs {
		return generator.Inputs{Desired: []string{desired}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: ns}
	}
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

// replaceRule is a Config holding a ytt rule (keepYTT) on what matcher selects, running body with
// ex decoded as obj is, where there is a live object.
func replaceRule(body, matcher string) string {
	return ytttest.Config(keepYTT("if ex == None:\n  return obj\nend\nex = json.decode(json.encode(ex))\n"+body, matcher))
}

// TestExplainCallsKappsRewrittenReferenceNoChange (issue 23, fix25e): explain, which runs no
// kapp, called an unchanged reference to a versioned ConfigMap pending (the manifest declares
// cfg, the live object cfg-ver-1: kapp's rewrite, no change). The oracle is kapp's deploy
// (kapptest.Changes): the reference is pending exactly where kapp's deploy, with no rules but its
// own, updates the referencing resource (the ConfigMap changed in Git: kapp writes cfg-ver-2).
func TestExplainCallsKappsRewrittenReferenceNoChange(t *testing.T) {
	none := writeFile(t, "none.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\n")
	for _, sc := range []versionedRef{
		{dir: "versioned-reference", ns: "versioned-ref", kind: "Deployment", ref: "apps/Deployment versioned-ref/web spec.template.spec.containers[name=web].envFrom[0].configMapRef.name"},
		{dir: "versioned-explicit-ref", ns: "versioned-xref", kind: "ConfigMap", ref: `core/ConfigMap versioned-xref/consumer metadata.annotations["kapp.k14s.io/versioned-explicit-ref"]`},
	} {
		v1, v2, in := versionedRefInputs(t, sc.dir, sc.ns, "k: v1", "k: v2")
		for _, desired := range []string{v1, v2} {
			rep, _, err := generator.Explain(in(desired))
			if err != nil {
				t.Fatal(err)
			}
			pending := false
			for _, r := range rep.Resources {
				for _, f := range r.Findings {
					pending = pending || f.Class == classify.Pending && r.ID.String()+" "+f.Path.String() == sc.ref
				}
			}
			deployed := in(desired)
			want := kapptest.MakesBoth(t, deployed.Desired, deployed.Live[0], deployed.Namespace, []string{none}, func(ch ctldiff.Change) bool {
				return ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == sc.kind
			})
			if pending != want {
				t.Errorf("%s, %s: the reference pending: %v, want %v (kapp's deploy updates the %s: %v)", sc.dir, filepath.Base(desired), pending, want, sc.kind, want)
			}
		}
	}
}
