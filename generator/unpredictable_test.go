package generator_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// TestRuleTellingDrawsFromGitChangesIsHidden (probe10 P10-1): a ytt rule hiding exactly the
// changes the mutation check's draw never makes (it redraws a string's last run of letters and
// digits only, keeps an integer's number of digits, and never changed a metadata value and a
// spec value at once, nor a value's type: probe12 P12-5) must fail the check when it is added,
// with no change in Git: it said
// clean, exit 0. The oracle that each rule hides such a change is kapp's engine on that change
// made in Git (check's judgement of the value Git holds, which draws nothing).
func TestRuleTellingDrawsFromGitChangesIsHidden(t *testing.T) {
	const image = `["spec"]["template"]["spec"]["containers"][0]["image"]`
	const max = `["spec"]["maxReplicas"]`
	const cpu = `["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]`
	for name, c := range map[string]struct {
		hides    string   // when the rule copies the live value (Starlark, obj the manifest's object, ex the live one)
		copies   string   // the value copied
		from, to []string // the change made in Git that it hides (first occurrences in the manifest)
		field    string   // the field hidden, on the Deployment (on the HorizontalPodAutoscaler: hpa)
		hpa      bool
	}{
		"registry": {`obj` + image + `.rsplit(":", 1)[0] != ex` + image + `.rsplit(":", 1)[0]`, image,
			[]string{"nginx:1.25"}, []string{"evil.io/nginx:1.25"}, "spec.template.spec.containers[name=web].image", false},
		"length": {`len(obj` + image + `) != len(ex` + image + `)`, image,
			[]string{"nginx:1.25"}, []string{"nginx:1.25-alpine"}, "spec.template.spec.containers[name=web].image", false},
		"digits": {`len(str(obj` + max + `)) != len(str(ex` + max + `))`, max,
			[]string{"maxReplicas: 5"}, []string{"maxReplicas: 10"}, "spec.maxReplicas", true},
		// probe12 P12-5: a change of a value's type (the API server's schema refuses most: a
		// quantity may be a string or a number, an IntOrString field too)
		"quantity becoming a number": {`type(obj` + cpu + `) != type(ex` + cpu + `)`, cpu,
			[]string{"cpu: 100m"}, []string{"cpu: 1"}, "spec.template.spec.containers[name=web].resources.requests.cpu", false},
		"label with image": {`obj["metadata"]["labels"]["app.kubernetes.io/name"] != ex["metadata"]["labels"]["app.kubernetes.io/name"] and obj` + image + ` != ex` + image, image,
			[]string{"app.kubernetes.io/name: web", "nginx:1.25"}, []string{"app.kubernetes.io/name: web2", "nginx:1.27"}, "spec.template.spec.containers[name=web].image", false},
	} {
		t.Run(name, func(t *testing.T) {
			in := fixture("hpa-replicas")
			yttRule, resource := webYTT(`
if ex != None and `+c.hides+`:
  obj`+c.copies+` = ex`+c.copies+`
end
`), "apps/Deployment hpa-replicas/web "
			if c.hpa {
				yttRule = strings.Replace(yttRule, "kind: Deployment,", "kind: HorizontalPodAutoscaler,", 1)
				resource = "autoscaling/HorizontalPodAutoscaler hpa-replicas/web "
			}
			rule := writeFile(t, "rule.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+yttRule)
			manifest, err := os.ReadFile(in.Desired[0])
			if err != nil {
				t.Fatal(err)
			}
			changed := string(manifest)
			for i := range c.from {
				if !strings.Contains(changed, c.from[i]) {
					t.Fatalf("the fixture lacks %q", c.from[i])
				}
				changed = strings.Replace(changed, c.from[i], c.to[i], 1)
			}
			inGit := in
			inGit.Desired = []string{writeFile(t, "changed.yaml", changed)}
			if got := hiddenIn(t, inGit, rule); !strings.Contains(got, c.field) {
				t.Fatalf("oracle: kapp's engine on the change made in Git: hidden %q, want %s", got, c.field)
			}
			if got := hiddenIn(t, in, rule); !strings.Contains(got, resource+c.field) {
				t.Errorf("the rule added with no change in Git: hidden %q, want %s", got, c.field)
			}
		})
	}
}

// TestUnlikeDrawsKeepOutputDeterministic: the draws are random on every run, and never reach the
// output: check's findings on a ytt rule that reads every value and hides nothing are the same
// bytes run after run.
func TestUnlikeDrawsKeepOutputDeterministic(t *testing.T) {
	rule := writeFile(t, "rule.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+webYTT(`
if ex != None and json.encode(obj) == json.encode(ex):
  return ex
end
`))
	in := imageBumped(t, fixture("hpa-replicas"))
	var first []byte
	for run := range 3 {
		c, err := generator.Check(in, []string{rule})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Hidden) > 0 {
			t.Fatalf("a rule hiding nothing: hidden %v", c.Hidden)
		}
		out, err := json.Marshal(c.Findings(verdict.Gate{}))
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = out
		} else if string(out) != string(first) {
			t.Fatalf("run %d: findings\n%s\nwant, as the first run's,\n%s", run, out, first)
		}
	}
}

// hiddenIn is what check reports hidden on in with the rule files, one finding a line.
func hiddenIn(t *testing.T, in generator.Inputs, rules ...string) string {
	t.Helper()
	c, err := generator.Check(in, rules)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range c.Hidden {
		out = append(out, h.String())
	}
	return strings.Join(out, "\n")
}
