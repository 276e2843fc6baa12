package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression (issue 24 item 2): in the README's CI setup (live captured once, desired rendered
// from the pull request) an image bump and a new value made in Git were "drift in the live
// objects", failed by --fail-on-drift, though kapp.k14s.io/original holds the live value: they are
// pending changes from Git, reported in every format as such, counted apart, never failing.
func TestCheckGitChangeIsNotDrift(t *testing.T) {
	g := changedInGit(t, func(manifest string) string {
		bumped := strings.Replace(manifest, "image: nginx:1.25", "image: nginx:1.27", 1)
		return strings.Replace(bumped, "            memory: 64Mi\n", "            memory: 64Mi\n        env:\n        - {name: LOG_LEVEL, value: debug}\n", 1)
	})
	args := g.check("--fail-on-drift")
	r := rebasegen(t, args...)
	for _, want := range []string{
		"pending change from Git (kapp applies it on deploy): apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image: a change made in Git",
		"pending change from Git (kapp applies it on deploy): apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].env: a change made in Git",
		"check: kapp keeps 1/2 paired resources, 2 pending changes from Git, applied on deploy; 0 residual ghost diffs, 0 unknown fields, 0 stale generated files, 0 drift",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text: no %q in:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 || strings.Contains(r.stdout, "drift:") {
		t.Errorf("text: want exit 0 and no drift, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(args, "--output", "github")...)
	if r.code != 0 || strings.Count(r.stdout, "::warning file="+g.desired+",line=1::pending change from Git") != 2 || strings.Contains(r.stdout, "::error") {
		t.Errorf("github: want exit 0 and 2 pending warnings, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(args, "--output", "json")...)
	var j struct{ Pending, Drift []fieldJSON }
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != 0 || len(j.Pending) != 2 || len(j.Drift) != 0 || j.Pending[0].Class != "pending" {
		t.Errorf("json: want exit 0, 2 pending and no drift, got %d (%v):\n%s", r.code, err, r.stdout)
	}
	r = rebasegen(t, append([]string{"explain", "--wide"}, g.inputs...)...) // one summary line
	if r.code != 0 || !strings.Contains(r.stdout, "pending 2 (changes made in Git: this deploy applies them)") || strings.Contains(r.stdout, "drift 2") {
		t.Errorf("explain: want the 2 pending changes, no drift, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A rule can single out the value Git actually holds, which random mutations never hit: a ytt
// rule taking the cluster's image whenever the manifest's starts with "nginx:1.2" lets the
// mutation check's values through but hides the bump. kapp would keep the Deployment, so the
// pending change is hidden: exit 3, never "kapp applies it on deploy".
func TestCheckPendingChangeHiddenByARule(t *testing.T) {
	g := changedInGit(t, func(manifest string) string {
		return strings.Replace(manifest, "image: nginx:1.25", "image: nginx:1.26", 1)
	})
	guess := g.file(t, "guess.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+guessImageRule)
	r := rebasegen(t, g.check("--rules", guess)...)
	want := "hidden: apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image: a change made in Git is hidden by " + guess + ":4, document 1, rebaseRules[0] (ytt overlay)"
	if r.code != 3 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "kapp applies it on deploy") {
		t.Errorf("want exit 3 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
	}
	// Without the guessing rule the bump is a pending change kapp applies: nothing hidden.
	r = rebasegen(t, g.check()...)
	if r.code != 0 || strings.Contains(r.stdout, "hidden:") {
		t.Errorf("generated rules alone: want exit 0 and nothing hidden, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// gitChange is the hpa-replicas fixture with rules generated for it and its desired objects
// changed in Git, as a pull request changes a package.
type gitChange struct {
	dir     string
	rules   string   // dir/rules.yml, generated from the unchanged fixture
	desired string   // dir/desired.yaml, the changed manifest
	inputs  []string // -d desired and the fixture's live objects
}

// changedInGit generates rules for the hpa-replicas fixture into dir/rules.yml and writes its
// desired objects as edit changes them to dir/desired.yaml.
func changedInGit(t *testing.T, edit func(string) string) gitChange {
	t.Helper()
	fix := scenario(t, "hpa-replicas")
	g := gitChange{dir: t.TempDir()}
	g.rules = filepath.Join(g.dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", g.rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(fix[1])
	if err != nil {
		t.Fatal(err)
	}
	g.desired = g.file(t, "desired.yaml", edit(string(data)))
	g.inputs = append([]string{"-d", g.desired}, fix[2:]...)
	return g
}

// file writes text to dir/name and returns its path.
func (g gitChange) file(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(g.dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// check is check's command line with the generated rules, flags (more rules files), the inputs.
func (g gitChange) check(flags ...string) []string {
	return append(append([]string{"check", "--rules", g.rules}, flags...), g.inputs...)
}

// keepResources restores a container's resources from the live object while the manifest has
// none: it hides their removal in Git.
const keepResources = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, resources]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`

// guessImageRule takes the cluster's image whenever the manifest's starts with "nginx:1.2":
// random mutations pass it, a bump in Git to nginx:1.26 does not.
const guessImageRule = `- ytt:
    overlayContractV1:
      overlay.yml: |
        #@ load("@ytt:data", "data")
        #@ load("@ytt:overlay", "overlay")
        #@ new = data.values.new["spec"]["template"]["spec"]["containers"][0]["image"]
        #@ old = data.values.existing["spec"]["template"]["spec"]["containers"][0]["image"]
        #@overlay/match by=overlay.all
        ---
        spec:
          template:
            spec:
              containers:
              #@overlay/match by="name"
              - name: web
                image: #@ old if new.startswith("nginx:1.2") else new
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`

// Regression (issue 23): a field the manifest no longer declares while kapp's last apply
// (kapp.k14s.io/original) and the live object hold it is a removal made in Git, which kapp (its
// built-in rules alone) applies. It was called unknown, and a copy rule from [new, existing],
// which nothing judged, hid it: check exited 0.
func TestCheckPendingRemovalHiddenByARule(t *testing.T) {
	g := changedInGit(t, func(manifest string) string {
		return strings.Replace(manifest, "        resources:\n          requests:\n            cpu: 100m\n            memory: 64Mi\n", "", 1)
	})
	const field = "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].resources"
	r := rebasegen(t, append([]string{"explain", "--wide"}, g.inputs...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "pending 1 (changes made in Git") || strings.Contains(r.stdout, "unknown 1") {
		t.Errorf("explain: want the removal pending, not unknown, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, g.check()...)
	if want := "pending change from Git (kapp applies it on deploy): " + field; r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("generated rules: want exit 0 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
	}
	keep := g.file(t, "keep.yml", keepResources)
	r = rebasegen(t, g.check("--rules", keep)...)
	if want := "hidden: " + field + ": a change made in Git is hidden by " + keep + ":4, document 1, rebaseRules[0] (copy [spec, template, spec, containers, {allIndexes: true}, resources] from [new, existing])"; r.code != 3 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "kapp applies it on deploy") {
		t.Errorf("with the copy rule: want exit 3 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
	}
}

// Regression (issue 23): check -o github annotated the first --rules file, line 1, whichever rule
// hid the change. The hidden finding carries where its rule is written: here the second rules
// file, whose rule starts at line 5 (after a comment and a Config needing no check); the text
// names file:line too.
func TestCheckGitHubAnnotatesTheHidingRule(t *testing.T) {
	g := changedInGit(t, func(manifest string) string { return manifest })
	second := g.file(t, "second.yml", `# line 1
apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, image]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	args := g.check("--rules", second)
	r := rebasegen(t, append(args, "--output", "github")...)
	want := "::error file=" + second + ",line=5::hidden: apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image"
	if r.code != 3 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "::error file="+g.rules+",") {
		t.Errorf("github: want exit 3 and %q, nothing on %s, got %d:\n%s%s", want, g.rules, r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, args...)
	if want := "is hidden by " + second + ":5, document 1, rebaseRules[0] (copy "; r.code != 3 || !strings.Contains(r.stdout, want) {
		t.Errorf("text: want exit 3 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
	}
}

// Regression (issue 23 item 4): a change made in Git hidden together with another one. With the
// image bumped, kapp updates the Deployment anyway, and check judged hidden only changes on
// resources kapp keeps: the removal of the container's resources, which a copy from [new,
// existing] restores from the live object, passed (exit 0). Each pending change is now judged
// on its own (the manifest with that field set back to what kapp last applied against the
// manifest), and the finding names the rule restoring it, in text and github (issue 23 item 7:
// it pointed at the first --rules file, line 1).
func TestCheckPendingChangeHiddenNextToAnother(t *testing.T) {
	g := changedInGit(t, func(manifest string) string {
		bumped := strings.Replace(manifest, "image: nginx:1.25", "image: nginx:1.27", 1)
		return strings.Replace(bumped, "        resources:\n          requests:\n            cpu: 100m\n            memory: 64Mi\n", "", 1)
	})
	keep := g.file(t, "keep.yml", keepResources)
	const web = "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web]."
	args := g.check("--rules", keep)
	r := rebasegen(t, args...)
	for _, want := range []string{"hidden: " + web + "resources: a change made in Git is hidden by " + keep + ":4, document 1, rebaseRules[0] (copy ",
		"pending change from Git (kapp applies it on deploy): " + web + "image"} {
		if r.code != 3 || !strings.Contains(r.stdout, want) {
			t.Errorf("text: want exit 3 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "(kapp applies it on deploy): "+web+"resources") {
		t.Errorf("the hidden removal is reported as applied on deploy:\n%s", r.stdout)
	}
	r = rebasegen(t, append(args, "--output", "github")...)
	if want := "::error file=" + keep + ",line=4::hidden: " + web + "resources"; r.code != 3 || !strings.Contains(r.stdout, want) {
		t.Errorf("github: want exit 3 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
	}
	// Without the copy rule both changes are applied: nothing hidden.
	r = rebasegen(t, g.check()...)
	if r.code != 0 || strings.Contains(r.stdout, "hidden:") {
		t.Errorf("generated rules alone: want exit 0 and nothing hidden, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Regression (issue 23 item 7): a rule rendered by ytt from a rules Secret's rebase-rules.yml was
// named "sec.yml (rebase-rules.yml)", a file GitHub cannot annotate. The finding names the
// Secret's file and the line of its rebase-rules.yml key, in every format.
func TestCheckHiddenBySecretRuleNamesTheSecretFile(t *testing.T) {
	g := changedInGit(t, func(manifest string) string { return manifest })
	sec := g.file(t, "sec.yml", `apiVersion: v1
kind: Secret
metadata:
  name: rules
stringData:
  other: x
  rebase-rules.yml: |
    #@ image = ["spec", "template", "spec", "containers", {"allIndexes": True}, "image"]
    apiVersion: kapp.k14s.io/v1alpha1
    kind: Config
    rebaseRules:
    - type: copy
      sources: [existing]
      paths:
      - #@ image
      resourceMatchers:
      - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	const field = "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].image"
	args := g.check("--rules", sec)
	r := rebasegen(t, append(args, "--output", "github")...)
	if want := "::error file=" + sec + ",line=7::hidden: " + field; r.code != 3 || !strings.Contains(r.stdout, want) {
		t.Errorf("github: want exit 3 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append(args, "--output", "json")...)
	var j struct{ Hidden []fieldJSON }
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != 3 || len(j.Hidden) != 1 || j.Hidden[0].File != sec || j.Hidden[0].Line != 7 {
		t.Errorf("json: want exit 3 and the hidden image at %s:7, got %d (%v):\n%s", sec, r.code, err, r.stdout)
	}
	r = rebasegen(t, args...)
	if want := "is hidden by " + sec + ":7, document 1, data[\"rebase-rules.yml\"] rebaseRules[0] (copy "; r.code != 3 || !strings.Contains(r.stdout, want) {
		t.Errorf("text: want exit 3 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
	}
}

// Regression (issue 23 item 6): lint judged each rule alone with the mutation check only, and
// missed what check finds: here a ytt rule taking the cluster's image whenever the manifest's
// starts with "nginx:1.2" (random values pass it, the bump from Git does not) next to a copy of
// the container's memory from [existing]. lint now reports the verdict stage's judgement: every
// rule check names as hiding a change is a lint error on that rule's line.
func TestLintFindsWhatCheckFinds(t *testing.T) {
	g := changedInGit(t, func(manifest string) string {
		bumped := strings.Replace(manifest, "image: nginx:1.25", "image: nginx:1.26", 1)
		return strings.Replace(bumped, "memory: 64Mi", "memory: 128Mi", 1)
	})
	hide := g.file(t, "hide.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, resources, requests, memory]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`+guessImageRule)
	r := rebasegen(t, append(g.check("--rules", hide), "--output", "github")...)
	for _, line := range []int{4, 10} {
		if want := fmt.Sprintf("::error file=%s,line=%d::hidden: ", hide, line); r.code != 3 || !strings.Contains(r.stdout, want) {
			t.Errorf("check: want exit 3 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
	r = rebasegen(t, append([]string{"lint", "--rules", g.rules, "--rules", hide}, g.inputs...)...)
	for _, line := range []int{4, 10} {
		if want := fmt.Sprintf("%s:%d: error: rebaseRules[%d]: the rule hides a change made in Git", hide, line, line/10); r.code != 4 || !strings.Contains(r.stdout, want) {
			t.Errorf("lint: want exit 4 and %q, got %d:\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
}
