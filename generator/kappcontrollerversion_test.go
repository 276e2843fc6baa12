package generator_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// probe13 P13-5: check --package-cr renders the Package as kapp-controller v0.51.0 runs it, and
// kapp-controller deploys it with kapp v0.62.0, which refuses a Config requiring kapp 0.66.0:
// nothing of the package is applied. check said 0 lint errors, exit 0; the rule file's
// minimumRequiredVersion is a lint error (exit 4) naming its line and both versions.
func TestCheckPackageCRJudgesTheConfigByKappControllersKapp(t *testing.T) {
	pkg := filepath.Join("..", "fixtures", "packages", "hpa-web")
	rules := writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nminimumRequiredVersion: 0.66.0\nrebaseRules: []\n")
	in := generator.Inputs{Live: []string{filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")}, Namespace: "hpa-replicas",
		Package: yttrender.Package{CR: filepath.Join(pkg, "package.yml"), ValuesFiles: []string{filepath.Join(pkg, "values.yml")}}}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(c.Lint, func(f lint.Finding) bool {
		return f.Severity == lint.Error && f.File == rules && f.Line == 3 && strings.Contains(f.Message, "kapp v0.62.0") && strings.Contains(f.Message, "'0.66.0'")
	}) {
		t.Errorf("no lint error on minimumRequiredVersion at %s:3: %+v", rules, c.Lint)
	}
}
