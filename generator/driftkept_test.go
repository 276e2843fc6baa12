package generator_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/generator/yttrender"
	"github.com/rebasegen/rebasegen/internal/format"
)

// A person's kubectl edit of fields the server defaults (dnsPolicy, sessionAffinity), which the
// generated rules copy from the live object: kapp keeps the person's values (real kapp's diff
// with these rules shows no change to them). check names that drift as kept by the rule, failing
// under --fail-on-drift, and the generated file is not stale because of it (newcomer24 finding
// 11: "stale" without --fail-on-drift, and the drift reported as if kapp reverted it).
func TestDriftKeptByACopyRuleIsNamedAndNotStale(t *testing.T) {
	dir := filepath.Join("testdata", "drift-kept")
	in := generator.Inputs{Live: []string{filepath.Join(dir, "live.yaml")},
		Package: yttrender.Package{Dirs: []string{filepath.Join(dir, "config")}, ValuesFiles: []string{filepath.Join(dir, "values.yml")}}}
	c, err := generator.Check(in, []string{filepath.Join(dir, "config", "rebase-rules.yml")})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Stale) != 0 {
		t.Errorf("stale because of drift the rules keep: %+v", c.Stale)
	}
	kept := map[string]bool{}
	for _, f := range c.Findings(verdict.Gate{FailOnDrift: true}) {
		if f.Kind == verdict.KindDrift && strings.Contains(f.Evidence, "kapp will NOT revert it") {
			kept[f.Resource.Kind+" "+f.Path] = f.Fails
		}
	}
	for _, want := range []string{"Deployment spec.template.spec.dnsPolicy", "Service spec.sessionAffinity"} {
		if fails, ok := kept[want]; !ok || !fails {
			t.Errorf("%s: want drift kept by the rules, failing under --fail-on-drift; kept drift: %v", want, kept)
		}
	}
	if fs := c.Findings(verdict.Gate{}); verdict.Failing(fs) {
		t.Errorf("without --fail-on-drift the gate fails: %+v", fs)
	}
	// in CI too (newcomer15 N15-3: the github format dropped the evidence, and the drift read as
	// one kapp reverts)
	var out strings.Builder
	if err := verdict.Write(&out, format.GitHub, verdict.CheckReport(c.Verdict, c.Findings(verdict.Gate{}), nil), "rules.yml"); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "::drift: core/Service ") && strings.Contains(l, " spec.sessionAffinity:") &&
			strings.Contains(l, "kept by ") && strings.HasSuffix(l, ": kapp will NOT revert it") {
			return
		}
	}
	t.Errorf("--output github: no drift annotation of spec.sessionAffinity saying it is kept and kapp will NOT revert it:\n%s", out.String())
}

// Regression (newcomer2 finding 1): the drift-kept check neutralised the other drifted fields of
// the object, and a field the manifest leaves out (dnsPolicy here) was neutralised by taking its
// whole parent from the live object (the pod spec), the person's other changes in it included:
// the env kubectl edit added to a container of the same pod spec, which kapp removes, was called "kept by
// the rules in force together: kapp will NOT revert it". Only the drift a rule copies is kept.
func TestDriftKeptIsJudgedPerField(t *testing.T) {
	dir := filepath.Join("testdata", "drift-kept")
	in := generator.Inputs{Live: []string{filepath.Join(dir, "live.yaml")},
		Package: yttrender.Package{Dirs: []string{filepath.Join(dir, "config")}, ValuesFiles: []string{filepath.Join(dir, "values.yml")}}}
	c, err := generator.Check(in, []string{filepath.Join(dir, "config", "rebase-rules.yml")})
	if err != nil {
		t.Fatal(err)
	}
	kept, drift := map[string]bool{}, map[string]bool{}
	for _, f := range c.Findings(verdict.Gate{}) {
		if f.Kind == verdict.KindDrift {
			drift[f.Resource.Kind+" "+f.Path] = true
			kept[f.Resource.Kind+" "+f.Path] = strings.Contains(f.Evidence, "kapp will NOT revert it")
		}
	}
	const env, dns = "Deployment spec.template.spec.containers[name=web].env", "Deployment spec.template.spec.dnsPolicy"
	// the same on the Service: sessionAffinity, which a rule copies, is kept; kapp's diff
	// removes the sessionAffinityConfig a person added with it
	const affinity, affinityConfig = "Service spec.sessionAffinity", "Service spec.sessionAffinityConfig"
	if !drift[env] || kept[env] || !kept[dns] || !drift[affinityConfig] || kept[affinityConfig] || !kept[affinity] {
		t.Errorf("want %s and %s drift kapp reverts, %s and %s kept; drift %v, kept %v", env, affinityConfig, dns, affinity, drift, kept)
	}
}
