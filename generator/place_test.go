package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// hpaPackage is fixtures/packages/hpa-web (Deployment + HPA, no namespace in the template) with
// the live objects of fixtures/hpa-replicas, captured where it was installed into hpa-replicas,
// or the same objects as kapp-controller leaves them for an install into ns.
func hpaPackage(t *testing.T, ns string) generator.Inputs {
	t.Helper()
	dir := filepath.Join("..", "fixtures", "packages", "hpa-web")
	live := filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")
	if ns != "hpa-replicas" {
		// the namespace everywhere it is written: metadata, kapp's identity and original
		// annotations, and kapp's association label, a hash of the identity (kapp's own code)
		data, err := os.ReadFile(live)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := load.Paths([]string{live}, nil)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, o := range objs {
			moved := o.Unstructured.DeepCopy()
			moved.SetNamespace(ns)
			association := func(u *unstructured.Unstructured) string {
				return ctlres.NewAssociationLabel(ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{})).Value()
			}
			text = strings.ReplaceAll(text, association(o.Unstructured), association(moved))
		}
		live = writeFile(t, "live.yaml", strings.ReplaceAll(text, "hpa-replicas", ns))
	}
	return generator.Inputs{Live: []string{live}, Namespace: ns,
		Package: yttrender.Package{Dirs: []string{filepath.Join(dir, "config")}, ValuesFiles: []string{filepath.Join(dir, "values.yml")}}}
}

// Rules generated for a package installed into one namespace hold, by kapp's engine under both
// bases and the mutation check, for the same package installed into another: the template leaves
// the namespace out, so kapp-controller puts the objects into the install namespace (issue 24).
func TestPackageRulesFollowTheInstallNamespace(t *testing.T) {
	g, err := generator.Generate(hpaPackage(t, "hpa-replicas"), synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Verification.OK() || g.Verification.KeptPairs != 2 {
		t.Fatalf("generated rules not verified: %s", g.Verification.Summary())
	}
	for _, w := range g.Warnings {
		if strings.Contains(w, "rules name namespace") {
			t.Errorf("unexpected warning: %s", w)
		}
	}
	rules, err := yaml.Marshal(g.Config.Object)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rules), "hpa-replicas") {
		t.Errorf("the rules name the namespace the package was captured in:\n%s", rules)
	}
	file := writeFile(t, "rules.yml", string(rules))

	elsewhere := hpaPackage(t, "shop")
	bare, err := generator.Check(elsewhere, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bare.Verdict.Paired != 2 || len(bare.Residual) == 0 {
		t.Fatalf("the moved capture is no test: without rules kapp pairs %d and has residual %v", bare.Verdict.Paired, bare.Residual)
	}
	c, err := generator.Check(elsewhere, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict.Kept != 2 || len(c.Residual)+len(c.Hidden)+len(c.Unknown) != 0 {
		t.Errorf("installed into shop, kapp keeps %d/%d: residual %v, hidden %v, unknown %v", c.Verdict.Kept, c.Verdict.Paired, c.Residual, c.Hidden, c.Unknown)
	}
}

// A consumer generates rules from what kapp deployed (plain manifests, each resource's namespace
// named); the package's CI then checks them against the package's template: the same rules,
// regenerated as the header records (from manifests), are not stale.
func TestRulesFromManifestsAreNotStaleForTheirPackage(t *testing.T) {
	in := fixture("hpa-replicas")
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	h := emit.Header{Version: "test", Options: emit.Options{Desired: in.Desired, Live: in.Live, Namespace: in.Namespace, Format: emit.FormatSecret, PackageInstall: "web"}}
	if err := emit.WriteRules(&b, g.Rules, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "kindNamespaceNameMatcher") {
		t.Fatalf("no test: the rules name no resource:\n%s", b.String())
	}
	c, err := generator.Check(hpaPackage(t, "hpa-replicas"), []string{writeFile(t, "secret.yml", b.String())})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Stale)+len(c.Residual)+len(c.Hidden) != 0 {
		t.Errorf("stale %+v, residual %v, hidden %v", c.Stale, c.Residual, c.Hidden)
	}
}
