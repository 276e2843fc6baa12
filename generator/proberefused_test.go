package generator_test

import (
	"bytes"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
	"github.com/rebasegen/rebasegen/internal/format"
)

const probedAPI = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: nginx:1.25
        ports:
        - {name: http, containerPort: 8080}
        resources:
          requests: {cpu: 100m}
        livenessProbe:
          tcpSocket: {port: http}
      - name: proxy
        image: busybox:1.36
`

// A livenessProbe removed in Git, under rules generated before (they copy the probe's defaults,
// failureThreshold and the rest, from the live object): kapp applies a probe with no handler,
// which the API server refuses, and the deploy fails. check called the change hidden, the server
// "putting the field back" from an alias, and never said the deploy fails; with the rules in the
// package's directory (read among the desired inputs), its update validation judged the object
// kapp sends without them (newcomer17 N17-3). It is a pending change from Git kapp's deploy fails
// on, put down to the rule, saying to regenerate now, in every output format, wherever the rules
// are read from. The oracles: kapp's own engine (the object it applies under both bases) and
// Kubernetes' validation of that object, which refuses it with the rules and accepts it without.
func TestRulesRebuildingARemovedProbeFailTheDeploy(t *testing.T) {
	live := writeFile(t, "live.yaml", kapptest.Deployed(t, "shop", probedAPI))
	rules, _ := generatedRules(t, generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", probedAPI)}, Live: []string{live}, Namespace: "shop"})
	removed := strings.Replace(probedAPI, "        livenessProbe:\n          tcpSocket: {port: http}\n", "", 1)
	if removed == probedAPI {
		t.Fatal("the probe is not removed")
	}
	pr := writeFile(t, "pr.yaml", removed)
	for _, c := range []struct {
		rules []string
		want  string
	}{{[]string{rules}, "spec.template.spec.containers[0].livenessProbe: Required value: must specify a handler type"}, {nil, ""}} {
		updates := 0
		for _, ch := range kapptest.BothBases(t, []string{pr}, live, "shop", c.rules) {
			if ch.Op() != ctldiff.ChangeOpUpdate {
				continue
			}
			updates++
			err := kapptest.DeploymentRefused(t, ch.NewResource().UnstructuredObject(), "shop")
			if got := ""; err != nil {
				got = err.Error()
				if c.want == "" || !strings.Contains(got, c.want) {
					t.Fatalf("rules %v, against last applied %v: the API server's validation of what kapp applies: %v, want %q", c.rules, ch.AgainstLastApplied, err, c.want)
				}
			} else if c.want != "" {
				t.Fatalf("rules %v, against last applied %v: the API server accepts what kapp applies, the test expects it refused", c.rules, ch.AgainstLastApplied)
			}
		}
		if updates != 2 {
			t.Fatalf("rules %v: kapp updates the Deployment under %d of 2 bases", c.rules, updates)
		}
	}
	for _, in := range []generator.Inputs{
		{Desired: []string{pr}, Live: []string{live}, Namespace: "shop"},
		{Desired: []string{pr, rules}, Live: []string{live}, Namespace: "shop"}, // the rules in the package's directory
	} {
		c, err := generator.Check(in, []string{rules})
		if err != nil {
			t.Fatal(err)
		}
		fs := c.Findings(verdict.Gate{})
		var got []string
		for _, f := range fs {
			if !strings.Contains(f.Path, "livenessProbe") {
				continue
			}
			got = append(got, string(f.Kind)+" "+f.Path)
			for _, want := range []string{"must specify a handler type", "regenerate the rules now", rules} {
				if !strings.Contains(f.Evidence, want) {
					t.Errorf("desired %v: %s %s: evidence lacks %q: %s", in.Desired, f.Kind, f.Path, want, f.Evidence)
				}
			}
			if !f.Fails || f.File != rules || f.Line == 0 {
				t.Errorf("desired %v: %s %s: fails %v at %s:%d, want failing at the rule's line in %s", in.Desired, f.Kind, f.Path, f.Fails, f.File, f.Line, rules)
			}
		}
		if want := "immutable spec.template.spec.containers[name=api].livenessProbe"; strings.Join(got, "\n") != want {
			t.Errorf("desired %v: findings of the probe:\n%s\nwant %s", in.Desired, strings.Join(got, "\n"), want)
		}
		for _, ft := range []format.Format{format.Text, format.JSON, format.GitHub} {
			var out bytes.Buffer
			if err := verdict.Write(&out, ft, verdict.CheckReport(c.Verdict, fs, c.Lint), rules); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"must specify a handler type", map[format.Format]string{
				format.Text:   "pending change from Git that kapp's deploy fails on",
				format.JSON:   "\"immutable\": [\n",
				format.GitHub: "::error file=" + rules + ",line=",
			}[ft]} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("desired %v: check -o %s lacks %q:\n%s", in.Desired, ft, want, out.String())
				}
			}
		}
	}
}
