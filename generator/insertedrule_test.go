package generator_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
)

// A rule Git inserts before a NetworkPolicy's own (an atomic list: no key, compared by index) was
// reported index by index: the inserted rule as a change of the live rule at its index, the live
// rule as an item the manifest adds, and the protocol: TCP the server defaulted in it as a ghost
// (newcomer14 N14-3). It is one pending change from Git of spec.ingress now: the live list is what
// the API server's defaulting makes of kapp's last apply, and the finding names the inserted rule,
// once in each output format. The live object is newcomer16's real NetworkPolicy (kapp v0.66.0 on
// kube-apiserver v1.37.2); expectations by hand; kapp's engine (check's verdict, with the rules
// generated before the change) updates it.
func TestRuleInsertedIntoANetworkPolicyIsOnePendingChange(t *testing.T) {
	dir := filepath.Join("testdata", "inserted-rule")
	in := generator.Inputs{Desired: []string{filepath.Join(dir, "desired.yaml")}, Live: []string{filepath.Join(dir, "live.yaml")}, Namespace: "shop"}
	const item = `{"from":[{"podSelector":{"matchLabels":{"app":"web"}}}]}`
	// the rules generated before the pull request (the desired state from kapp.k14s.io/original)
	rules, _ := generatedRules(t, generator.Inputs{Live: in.Live, Namespace: "shop"})
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	fs := c.Findings(verdict.Gate{FailOnDrift: true})
	var got []string
	for _, f := range fs {
		if strings.HasPrefix(f.Path, "spec.ingress") {
			got = append(got, string(f.Kind)+" "+f.Path)
			if !strings.Contains(f.Evidence, "inserts the item "+item+" at index 0") {
				t.Errorf("%s %s does not name the inserted rule: %s", f.Kind, f.Path, f.Evidence)
			}
		}
	}
	if want := "pending spec.ingress"; strings.Join(got, "\n") != want {
		t.Errorf("findings of spec.ingress:\n%s\nwant %s", strings.Join(got, "\n"), want)
	}
	if verdict.Failing(fs) || c.Verdict.Kept != 0 {
		t.Errorf("want the update kapp applies, not failing (kept %d): %+v", c.Verdict.Kept, fs)
	}
	for _, ft := range []format.Format{format.Text, format.JSON, format.GitHub} {
		var out bytes.Buffer
		if err := verdict.Write(&out, ft, verdict.CheckReport(c.Verdict, fs, c.Lint), "rules.yml"); err != nil {
			t.Fatal(err)
		}
		named := item
		if ft == format.JSON {
			named = strings.ReplaceAll(item, `"`, `\"`)
		}
		if n := strings.Count(out.String(), named); n != 1 {
			t.Errorf("check -o %s names the inserted rule %d times, want once:\n%s", ft, n, out.String())
		}
	}
}
