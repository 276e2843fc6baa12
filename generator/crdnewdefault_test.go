package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/classify"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A custom resource is defaulted with the CRD kapp applies first, not the live one: kapp applies
// CRDs before custom resources, so the API server defaults kapp's update of one with the new
// CRD's defaults. testdata/crdnewdefault is captured from kube-apiserver v1.37.2 after kapp
// v0.66.0 deployed a Widget declaring `retention: 7` under a CRD defaulting it to 7; the pull
// request drops `retention` from the Widget and makes the CRD's default 30. Measured: the deploy
// leaves the Widget at retention 30; with the rule generate wrote (copy [spec, retention] from
// the live object, as a default the server makes) the deploy leaves it at 7 and kapp shows no
// change for it. check passed that rule (exit 0: the default judged with the live CRD, 7).
func TestCustomResourceDefaultedWithTheCRDKappAppliesFirst(t *testing.T) {
	dir := filepath.Join("testdata", "crdnewdefault")
	desired, err := os.ReadFile(filepath.Join(dir, "desired.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rule := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [spec, retention]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: e1.rebasegen.dev/v1, kind: Widget}
`)
	for _, tc := range []struct {
		name, desired string
		class         classify.Class // the Widget's spec.retention
		hidden        bool           // the rule hides a change made in Git
	}{
		{"the CRD's default changed", string(desired), classify.Pending, true},
		// control: the CRD's default stays 7, which the server puts back: a ghost the rule keeps
		{"the CRD's default unchanged", strings.Replace(string(desired), "default: 30", "default: 7", 1), classify.Defaulted, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", tc.desired)}, Live: []string{filepath.Join(dir, "live.yaml")}}
			a, err := generator.Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			var class classify.Class
			for _, r := range a.Report.Resources {
				for _, f := range r.Findings {
					if r.Desired.Kind == "Widget" && f.Path.String() == "spec.retention" {
						class = f.Class
					}
				}
			}
			if class != tc.class {
				t.Errorf("explain: the Widget's spec.retention is %q, want %q", class, tc.class)
			}
			hidden := false
			for _, f := range checked(t, in, rule).Findings(verdict.Gate{}) {
				if f.Resource.Kind == "Widget" && f.Path == "spec.retention" && f.Kind == verdict.KindHidden && f.Fails {
					hidden = true
				}
			}
			if hidden != tc.hidden {
				t.Errorf("check: the rule keeping spec.retention hides a change made in Git: %v, want %v", hidden, tc.hidden)
			}
		})
	}
}
