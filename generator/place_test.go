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
		live = movedCapture(t, live, "hpa-replicas", ns)
	}
	return generator.Inputs{Live: []string{live}, Namespace: ns,
		Package: yttrender.Package{Dirs: []string{filepath.Join(dir, "config")}, ValuesFiles: []string{filepath.Join(dir, "values.yml")}}}
}

// movedCapture is the capture in file of objects installed into namespace from as
// kapp-controller leaves them for an install into to: the namespace everywhere it is written
// (metadata, kapp's identity and original annotations) and kapp's association label, a hash of
// the identity (kapp's own code).
func movedCapture(t *testing.T, file, from, to string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := load.Paths([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, o := range objs {
		moved := o.Unstructured.DeepCopy()
		moved.SetNamespace(to)
		association := func(u *unstructured.Unstructured) string {
			return ctlres.NewAssociationLabel(ctlres.NewResourceUnstructured(*u, ctlres.ResourceType{})).Value()
		}
		text = strings.ReplaceAll(text, association(o.Unstructured), association(moved))
	}
	return writeFile(t, "live.yaml", strings.ReplaceAll(text, from, to))
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

// The diff of a stale file shows what the check compares: a package's rules that name a
// namespace (the package renders Services web and web-nodeport without one, and a rule for them
// by kind would match the third), checked against a capture of the package installed into
// another namespace, are stale through those names alone, and their diff was mostly hunks
// changing only the #! comments, which name the capture's resources and are not compared
// (newcomer11 N11-7). Oracle: the diff text read line by line, each hunk needing a changed line
// that is not a #! comment, and the renamed matchers among them.
func TestStaleDiffLeavesOutHunksOfCommentsAlone(t *testing.T) {
	manifests, err := os.ReadFile(filepath.Join("..", "fixtures", "services", "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.yml"), []byte(strings.ReplaceAll(string(manifests), "\n  namespace: services\n", "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join("..", "fixtures", "services", "live.yaml")
	in := generator.Inputs{Live: []string{live}, Namespace: "services", Package: yttrender.Package{Dirs: []string{dir}}}
	text, _ := generatedText(t, in, emit.Options{Live: in.Live, Packages: in.Package.Dirs, Namespace: "services"})
	rules := writeFile(t, "rules.yml", text)
	in.Live, in.Namespace = []string{movedCapture(t, live, "services", "shop")}, "shop"
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Stale) != 1 {
		t.Fatalf("no test: the rules naming services are not stale against the capture in shop: %+v", c.Stale)
	}
	diff := c.Stale[0].Diff
	if !strings.Contains(diff, "\n+  - kindNamespaceNameMatcher: {kind: Service, namespace: shop, name: web}\n") {
		t.Errorf("the diff lacks the renamed matcher:\n%s", diff)
	}
	hunks := strings.Split(diff, "\n@@ ")[1:]
	if len(hunks) == 0 {
		t.Fatalf("no hunk:\n%s", diff)
	}
	for _, h := range hunks {
		changes := false
		for _, l := range strings.Split(h, "\n")[1:] {
			if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(strings.TrimLeft(l[1:], " "), "#!") {
				changes = true
			}
		}
		if !changes {
			t.Errorf("a hunk changes only #! comments, which the check does not compare:\n@@ %s", h)
		}
	}
}
