package generator_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// A package's output rendered outside rebasegen and given as the manifests (ytt -f config |
// rebasegen check -d -, the Action's desired:) is judged as that package: the rules file its
// header says --package wrote names no namespace for the objects the package renders without
// one (they follow the install namespace), and check regenerated it from the same objects as
// plain manifests, naming the namespace, and called an unchanged pull request's rules stale
// (newcomer16 N16-1). Hand-read expectations: unchanged, the file is what --package writes from
// this rendering (check --package calls it fresh); the same header over rules naming the
// namespace (what -d writes) is stale, since kapp would not keep the package installed elsewhere
// with them (TestPackageRulesFollowTheInstallNamespace); kapp's engine leaves no ghost diff with
// the fresh file. generate from the rendering into that file says why it writes names instead.
func TestRenderedPackageIsJudgedAsItsPackage(t *testing.T) {
	pkg := hpaPackage(t, "hpa-replicas")
	recorded := emit.Options{Live: pkg.Live, Packages: pkg.Package.Dirs, Values: pkg.Package.ValuesFiles, Namespace: "hpa-replicas"}
	text, _ := generatedText(t, pkg, recorded)
	if strings.Contains(text, "namespace: hpa-replicas") || !strings.Contains(text, "apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}") {
		t.Fatalf("no test: the package's rules name the namespace:\n%s", text)
	}
	rules := writeFile(t, "rebase-rules.yml", text)
	manifests := fixture("hpa-replicas") // the package's rendering, object for object
	rendered := generator.Inputs{Desired: []string{renderedWith(t, manifests, rules)}, Live: pkg.Live}

	asPackage, err := generator.Check(pkg, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	c, err := generator.Check(rendered, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(asPackage.Stale) > 0 || len(c.Stale) > 0 || len(c.Residual)+len(c.Hidden) > 0 {
		t.Errorf("unchanged: check --package: %d stale; check -d rendered: %d stale %+v, residual %v, hidden %v; want none", len(asPackage.Stale), len(c.Stale), c.Stale, c.Residual, c.Hidden)
	}

	named, _ := generatedText(t, manifests, recorded)
	if !strings.Contains(named, "namespace: hpa-replicas") {
		t.Fatalf("no test: the rules from the manifests name no namespace:\n%s", named)
	}
	namedFile := writeFile(t, "rebase-rules.yml", named)
	renamed := generator.Inputs{Desired: []string{renderedWith(t, manifests, namedFile)}, Live: pkg.Live}
	if c, err = generator.Check(renamed, []string{namedFile}); err != nil {
		t.Fatal(err)
	}
	if len(c.Stale) != 1 {
		t.Errorf("rules naming the namespace under a --package header: %d stale files, want 1", len(c.Stale))
	}

	rendered.RuleFiles = []string{rules} // generate -d rendered --output-file rules
	g, err := generator.Generate(rendered, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	warned := slices.ContainsFunc(g.Warnings, func(w string) bool {
		return strings.HasPrefix(w, rules+": its Regenerate line renders the package (--package "+pkg.Package.Dirs[0]+")")
	})
	if !warned {
		t.Errorf("generate -d rendered --output-file %s: no warning that --package writes other rules: %q", rules, g.Warnings)
	}
	// the file it writes records --desired, and is judged so from the next rendering
	written, _ := generatedText(t, rendered, given(rendered))
	writtenFile := writeFile(t, "rebase-rules.yml", written)
	next := generator.Inputs{Desired: []string{renderedWith(t, manifests, writtenFile)}, Live: pkg.Live}
	if c, err = generator.Check(next, []string{writtenFile}); err != nil {
		t.Fatal(err)
	}
	if len(c.Stale)+len(c.Residual) > 0 {
		t.Errorf("the file generate wrote from the rendering: %d stale, residual %v; want none", len(c.Stale), c.Residual)
	}
}
