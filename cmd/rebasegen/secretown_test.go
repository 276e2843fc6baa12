package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/load"
)

// A rules Secret is one PackageInstall's: its rules match the resources that install renders,
// not every resource of their kinds (newcomer4 finding 4: a Deployment of another install in the
// same namespace, or of any install the Secret is added to, was matched by every kind's rule).
// kapp's own matcher code judges the Secret's Config: each of the install's resources is matched
// by the rules it was matched by before, and a resource of the same kinds with another name by
// none of them; check finds the Secret current.
func TestSecretRulesMatchTheInstallsOwnResources(t *testing.T) {
	in := scenario(t, "package-app")
	file := filepath.Join(t.TempDir(), "secret.yml")
	if r := rebasegen(t, append([]string{"generate"}, append(in, "--output", "secret", "--package-install", "shop", "--output-file", file)...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	cfg := kappConfig(t, secretRules(t, file))
	matched := func(u *unstructured.Unstructured) int { return len(matchingRules(cfg, u)) }
	kinds := 0
	for _, u := range desiredObjects(t, in) {
		own := matched(u)
		if own == 0 {
			continue
		}
		kinds++
		other := u.DeepCopy()
		other.SetName(u.GetName() + "-of-another-install")
		if n := matched(other); n != 0 {
			t.Errorf("%s %s: %d of the Secret's rules match it, though the install renders no such object", other.GetKind(), other.GetName(), n)
		}
	}
	if kinds == 0 {
		t.Fatal("no rule of the Secret matches any of the install's resources")
	}
	r := rebasegen(t, append([]string{"check"}, append(in, "--rules", file)...)...)
	if r.code != 0 {
		t.Errorf("check on the generated Secret: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// A rules Secret names, in each rule, only the resources kapp's matcher selects with the rule as
// the config file writes it: naming one its gate rejects (a Deployment without container ports
// in the rule copying ports[*].protocol) changed nothing kapp does, but made lint warn on
// generate's own output that the name "matches none of the desired objects" (newcomer11 N11-4).
// kapp's own matcher code is the oracle: every desired object is matched by the same rules of the
// Secret as of the config file, and lint of the Secret against the same objects is clean.
func TestSecretRulesNameOnlyWhatEachRuleMatches(t *testing.T) {
	in := scenario(t, "package-app")
	dir := t.TempDir()
	secretFile, configFile := filepath.Join(dir, "secret.yml"), filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate"}, append(in, "--output", "secret", "--package-install", "shop", "--output-file", secretFile)...)...); r.code != 0 {
		t.Fatalf("generate --output secret: exit %d: %s", r.code, r.stderr)
	}
	if r := rebasegen(t, append([]string{"generate"}, append(in, "--output-file", configFile)...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	r := rebasegen(t, "lint", "--rules", secretFile, "-d", in[1], "-n", in[5])
	if out := r.stdout + r.stderr; r.code != 0 || !strings.Contains(out, "0 errors, 0 warnings") {
		t.Errorf("lint of generate's own Secret: exit %d:\n%s", r.code, out)
	}
	plain, err := os.ReadFile(configFile)
	if err != nil {
		t.Fatal(err)
	}
	fromSecret, fromConfig := kappConfig(t, secretRules(t, secretFile)), kappConfig(t, string(plain))
	if len(fromSecret.RebaseRules) != len(fromConfig.RebaseRules) {
		t.Fatalf("the Secret has %d rebase rules, the config file %d", len(fromSecret.RebaseRules), len(fromConfig.RebaseRules))
	}
	for _, u := range desiredObjects(t, in) {
		if got, want := matchingRules(fromSecret, u), matchingRules(fromConfig, u); !slices.Equal(got, want) {
			t.Errorf("%s %s: the Secret's rules %v match it, the config file's %v", u.GetKind(), u.GetName(), got, want)
		}
	}
}

// secretRules is the rules file a generated Secret holds.
func secretRules(t *testing.T, file string) string {
	t.Helper()
	bs, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var secret struct {
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal(bs, &secret); err != nil {
		t.Fatal(err)
	}
	return secret.StringData["rebase-rules.yml"]
}

// kappConfig is kapp's Config of a rules file.
func kappConfig(t *testing.T, doc string) ctlconf.Config {
	t.Helper()
	res, err := ctlres.NewResourceFromBytes([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ctlconf.NewConfigFromResource(res)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// matchingRules are the indexes of cfg's rebase rules kapp's matcher code selects u with.
func matchingRules(cfg ctlconf.Config, u *unstructured.Unstructured) []int {
	r := ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{})
	var out []int
	for i, rule := range cfg.RebaseRules {
		if (ctlres.AnyMatcher{Matchers: ctlconf.ResourceMatchers(rule.ResourceMatchers).AsResourceMatchers()}).Matches(r) {
			out = append(out, i)
		}
	}
	return out
}

// desiredObjects are the scenario's desired objects, in the namespace of its -n where they name
// none (the CRD is cluster-scoped).
func desiredObjects(t *testing.T, in []string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := load.Paths([]string{in[1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		u := o.Unstructured.DeepCopy()
		if u.GetNamespace() == "" && u.GetKind() != "CustomResourceDefinition" {
			u.SetNamespace(in[5])
		}
		out[i] = u
	}
	return out
}

// TestSecretForAnInstallElsewhereSaysWhereItsRulesHold (newcomer11 N11-8): generate -o secret
// --package-install prod/NAME without -n, the live objects holding the objects without a namespace
// in another namespace, wrote rules naming that namespace for a Secret in prod without a word. It
// says so, naming both namespaces; not when the PackageInstall's namespace is the inferred one, nor
// when -n chose the namespace.
func TestSecretForAnInstallElsewhereSaysWhereItsRulesHold(t *testing.T) {
	in := scenario(t, "package-app") // -d desired -l live -n package-app; no desired object names a namespace
	noN := in[:4]
	note := "note: the Secret is for the PackageInstall shop in namespace prod, but its rules name namespace package-app, where the live objects hold the desired objects without a namespace: kapp-controller installs those into the PackageInstall's spec.defaultNamespace, else into its own namespace prod, so the rules hold only if its spec.defaultNamespace is package-app; else generate with -n prod from live objects captured there (rebasegen capture --package-install prod/shop)\n"
	r := rebasegen(t, append([]string{"generate", "-q", "-o", "secret", "--package-install", "prod/shop"}, noN...)...)
	if r.code != 0 || !strings.Contains(r.stderr, note) ||
		!strings.Contains(r.stdout, "\n  namespace: prod\n") || !strings.Contains(r.stdout, "namespace: package-app, name: shop-api}") {
		t.Errorf("--package-install prod/shop without -n: exit %d, want the Secret in prod naming package-app/shop-api and the note %q\nstdout:\n%s\nstderr:\n%s", r.code, note, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		append([]string{"--package-install", "package-app/shop"}, noN...),
		append([]string{"--package-install", "prod/shop"}, in...),
	} {
		r := rebasegen(t, append([]string{"generate", "-q", "-o", "secret"}, args...)...)
		if r.code != 0 || strings.Contains(r.stderr, "note: the Secret is for") {
			t.Errorf("%v: exit %d, want no note on the install's namespace\nstderr:\n%s", args, r.code, r.stderr)
		}
	}
}
