package argocd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/load"
)

// A jq ignore whose few steps allocate without bound is an input error naming its file, line,
// document, entry and expression (probe17 P17-1): `reduce range(36) as $i ("x"; . + .)`, some
// 150 jq steps, builds a 64 GiB string, and was Go's fatal "out of memory" in rebasegen's own
// process (the steps were bounded, the memory not). Argo CD's comparisons under it run in the jq
// child, whose memory the kernel bounds (here lowered to 256 MiB); the expression that needs it is
// named alone beside a harmless one of the same entry, lint says so too, and the next comparison
// runs in a new child.
func TestJQMemoryIsBounded(t *testing.T) {
	if !jqInChild.Load() {
		t.Skip("no memory-bounded child on this OS or under the race detector")
	}
	defer func(old uint64) { jqLimits.memory = old }(jqLimits.memory)
	jqLimits.memory = 256 << 20
	dir := filepath.Join("..", "..", "fixtures", "argocd", "argo-hpa")
	a, err := generator.Analyze(generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "argo-hpa"})
	if err != nil {
		t.Fatal(err)
	}
	const bomb = `.spec.replicas | select((reduce range(36) as $i ("x"; . + .)) | length > 0)`
	app := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: argo-hpa\n  namespace: argocd\nspec:\n  ignoreDifferences:\n" +
		"  - group: apps\n    kind: Deployment\n    jqPathExpressions:\n    - '.spec.template.spec.containers[] | select(.name == \"web\") | .imagePullPolicy'\n    - '" + bomb + "'\n"
	rules := filepath.Join(t.TempDir(), "jqbomb.yml")
	if err := os.WriteFile(rules, []byte(app), 0o600); err != nil {
		t.Fatal(err)
	}
	rd := load.NewReader(nil)
	objs, err := load.Paths([]string{rules}, rd)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(objs, rd)
	if err != nil {
		t.Fatal(err)
	}
	want := rules + `:8, document 1, spec.ignoreDifferences[0].jqPathExpressions[1] ".spec.replicas | select((reduce range(36) as $i (\"x\"; . + .)) | length > 0)": ` +
		`Argo CD's comparison of Deployment web under it needs more than 256 MiB of memory`
	if _, err := Synthesize(a.Report, s); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Synthesize: %v\nwant an error starting %s", err, want)
	}
	lints := LintSettings(a.Report, s)
	if len(lints) != 1 || !lints[0].Error || !strings.HasPrefix(lints[0].What, "on the desired object of apps/Deployment argo-hpa/web needs more than 256 MiB of memory") {
		t.Errorf("lints %+v, want one error: the expression needs more than the memory", lints)
	}
	s.Ignores[0].JQPathExpressions = s.Ignores[0].JQPathExpressions[:1]
	if _, err := Synthesize(a.Report, s); err != nil {
		t.Errorf("the harmless expression alone, after: %v", err)
	}
}
