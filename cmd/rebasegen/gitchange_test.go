package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/internal/ytttest"
)

// Changes made in Git to the hpa-replicas fixture (as a pull request changes a package), judged
// with rules generated from the unchanged fixture, and with a rules file of the case's own: what
// each command says about them, in each format. In wants, {rules} is the case's rules file,
// {generated} the generated one, {desired} the changed manifest; a json run's wants are matched
// against its findings, one line each: "<list> <resource> <path> <file>:<line>".
func TestCheckGitChanges(t *testing.T) {
	const (
		web       = "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web]."
		pending   = "pending change from Git (kapp applies it on deploy): " + web
		resources = "        resources:\n          requests:\n            cpu: 100m\n            memory: 64Mi\n"
	)
	image := func(to string) func(string) string {
		return func(m string) string { return strings.Replace(m, "image: nginx:1.25", "image: "+to, 1) }
	}
	then := func(edits ...func(string) string) func(string) string {
		return func(m string) string {
			for _, e := range edits {
				m = e(m)
			}
			return m
		}
	}
	noResources := func(m string) string { return strings.Replace(m, resources, "", 1) }
	generated := generatedRules(t) // every case changes the same fixture: generated once (was once per case)
	type run struct {
		cmd       string   // check, explain (--wide) or lint
		withRules bool     // the case's rules file too
		flags     []string // after the command's rules files
		code      int
		want, not []string
	}
	for _, tc := range []struct {
		name  string
		edit  func(string) string // the manifest as Git changed it
		rules string              // the case's rules file
		runs  []run
	}{
		// Regression (issue 24 item 2): in the README's CI setup (live captured once, desired
		// rendered from the pull request) an image bump and a new value made in Git were "drift in
		// the live objects", failed by --fail-on-drift, though kapp.k14s.io/original holds the live
		// value: they are pending changes from Git, reported in every format as such, counted
		// apart, never failing.
		{name: "git change is not drift", edit: then(image("nginx:1.27"), func(m string) string {
			return strings.Replace(m, "            memory: 64Mi\n", "            memory: 64Mi\n        env:\n        - {name: LOG_LEVEL, value: debug}\n", 1)
		}), runs: []run{
			{cmd: "check", flags: []string{"--fail-on-drift"}, want: []string{pending + "image: a change made in Git", pending + "env: a change made in Git",
				"check: kapp keeps 1/2 paired resources, 2 pending changes from Git, applied on deploy; 0 residual ghost diffs, 0 unknown fields, 0 stale generated files, 0 drift"},
				not: []string{"drift:"}},
			{cmd: "check", flags: []string{"--fail-on-drift", "--output", "github"}, want: []string{"::warning file={desired},line=19::" + pending + "image",
				"::warning file={desired},line=26::" + pending + "env"}, not: []string{"::error"}},
			{cmd: "check", flags: []string{"--fail-on-drift", "--output", "json"}, want: []string{"pending/pending " + web + "image", "pending/pending " + web + "env"},
				not: []string{"drift/"}}, // the drift list's entries (jsonFindings); the file's directory is named after the test
			{cmd: "explain", want: []string{"pending 2 (changes made in Git: this deploy applies them)"}, not: []string{"drift 2"}},
		}},
		// A rule can single out the value Git actually holds, which random mutations never hit: a
		// ytt rule taking the cluster's image whenever the manifest's starts with "nginx:1.2" lets
		// the mutation check's values through but hides the bump. kapp would keep the Deployment,
		// so the pending change is hidden: exit 3, never "kapp applies it on deploy". Without the
		// rule the bump is a pending change kapp applies: nothing hidden.
		{name: "pending change hidden by a rule", edit: image("nginx:1.26"), rules: configOf(guessImageRule), runs: []run{
			{cmd: "check", withRules: true, code: 3, want: []string{"hidden: " + web + "image: a change made in Git is hidden by {rules}:4, document 1, rebaseRules[0] (ytt overlay)"},
				not: []string{"kapp applies it on deploy"}},
			{cmd: "check", not: []string{"hidden:"}},
		}},
		// Regression (issue 23): a field the manifest no longer declares while kapp's last apply
		// (kapp.k14s.io/original) and the live object hold it is a removal made in Git, which kapp
		// (its built-in rules alone) applies. It was called unknown, and a copy rule from [new,
		// existing], which nothing judged, hid it: check exited 0.
		{name: "pending removal hidden by a rule", edit: noResources, rules: keepResources, runs: []run{
			{cmd: "explain", want: []string{"pending 1 (changes made in Git"}, not: []string{"unknown 1"}},
			{cmd: "check", want: []string{pending + "resources"}},
			{cmd: "check", withRules: true, code: 3, want: []string{"hidden: " + web + "resources: a change made in Git is hidden by {rules}:4, document 1, rebaseRules[0] (copy [spec, template, spec, containers, {allIndexes: true}, resources] from [new, existing])"},
				not: []string{"kapp applies it on deploy"}},
		}},
		// Regression (issue 23): check -o github annotated the first --rules file, line 1,
		// whichever rule hid the change. The hidden finding carries where its rule is written:
		// here the second rules file, whose rule starts at line 5 (after a comment and a Config
		// needing no check); the text names file:line too.
		{name: "github annotates the hiding rule", rules: "# line 1\n" + configOf(`- type: copy
  sources: [existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, image]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`), runs: []run{
			{cmd: "check", withRules: true, flags: []string{"--output", "github"}, code: 3, want: []string{"::error file={rules},line=5::hidden: " + web + "image"},
				not: []string{"::error file={generated},"}},
			{cmd: "check", withRules: true, code: 3, want: []string{"is hidden by {rules}:5, document 1, rebaseRules[0] (copy "}},
		}},
		// Regression (issue 23 item 4): a change made in Git hidden together with another one.
		// With the image bumped, kapp updates the Deployment anyway, and check judged hidden only
		// changes on resources kapp keeps: the removal of the container's resources, which a copy
		// from [new, existing] restores from the live object, passed (exit 0). Each pending change
		// is now judged on its own (the manifest with that field set back to what kapp last
		// applied against the manifest), and the finding names the rule restoring it, in text and
		// github (issue 23 item 7: it pointed at the first --rules file, line 1). Without the copy
		// rule both changes are applied: nothing hidden.
		{name: "pending change hidden next to another", edit: then(image("nginx:1.27"), noResources), rules: keepResources, runs: []run{
			{cmd: "check", withRules: true, code: 3, want: []string{"hidden: " + web + "resources: a change made in Git is hidden by {rules}:4, document 1, rebaseRules[0] (copy ",
				pending + "image"}, not: []string{pending + "resources"}},
			{cmd: "check", withRules: true, flags: []string{"--output", "github"}, code: 3, want: []string{"::error file={rules},line=4::hidden: " + web + "resources"}},
			{cmd: "check", not: []string{"hidden:"}},
		}},
		// Regression (issue 23 item 7): a rule rendered by ytt from a rules Secret's
		// rebase-rules.yml was named "sec.yml (rebase-rules.yml)", a file GitHub cannot annotate.
		// The finding names the Secret's file and the line of its rebase-rules.yml key, in every
		// format.
		{name: "hidden by a Secret's rule names the Secret's file", rules: `apiVersion: v1
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
`, runs: []run{
			{cmd: "check", withRules: true, flags: []string{"--output", "github"}, code: 3, want: []string{"::error file={rules},line=7::hidden: " + web + "image"}},
			{cmd: "check", withRules: true, flags: []string{"--output", "json"}, code: 3, want: []string{"hidden/ " + web + "image {rules}:7"}},
			{cmd: "check", withRules: true, code: 3, want: []string{"is hidden by {rules}:7, document 1, data[\"rebase-rules.yml\"] rebaseRules[0] (copy "}},
		}},
		// Regression (issue 23 item 6): lint judged each rule alone with the mutation check only,
		// and missed what check finds: here a ytt rule taking the cluster's image whenever the
		// manifest's starts with "nginx:1.2" (random values pass it, the bump from Git does not)
		// next to a copy of the container's memory from [existing]. lint now reports the verdict
		// stage's judgement: every rule check names as hiding a change is a lint error on that
		// rule's line.
		{name: "lint finds what check finds", edit: then(image("nginx:1.26"), func(m string) string {
			return strings.Replace(m, "memory: 64Mi", "memory: 128Mi", 1)
		}), rules: configOf(`- type: copy
  sources: [existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, resources, requests, memory]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
` + guessImageRule), runs: []run{
			{cmd: "check", withRules: true, flags: []string{"--output", "github"}, code: 3, want: []string{"::error file={rules},line=4::hidden: ", "::error file={rules},line=10::hidden: "}},
			{cmd: "lint", withRules: true, code: 4, want: []string{"{rules}:4: error: rebaseRules[0]: the rule hides a change made in Git",
				"{rules}:10: error: rebaseRules[1]: the rule hides a change made in Git"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edit := tc.edit
			if edit == nil {
				edit = then()
			}
			g := changedFrom(t, generated, edit)
			rules := ""
			if tc.rules != "" {
				rules = g.file(t, "case.yml", tc.rules)
			}
			placeholders := strings.NewReplacer("{rules}", rules, "{generated}", g.rules, "{desired}", g.desired)
			for _, r := range tc.runs {
				var args []string
				switch r.cmd {
				case "explain":
					args = append([]string{"explain", "--wide"}, g.inputs...)
				case "lint":
					args = append([]string{"lint", "--rules", g.rules, "--rules", rules}, g.inputs...)
				default:
					flags := r.flags
					if r.withRules {
						flags = append([]string{"--rules", rules}, flags...)
					}
					args = g.check(flags...)
				}
				res := rebasegen(t, args...)
				out := res.stdout
				if len(r.flags) > 0 && r.flags[len(r.flags)-1] == "json" {
					out = jsonFindings(t, out)
				}
				ok := res.code == r.code
				for _, w := range r.want {
					ok = ok && strings.Contains(out, placeholders.Replace(w))
				}
				for _, n := range r.not {
					ok = ok && !strings.Contains(out, placeholders.Replace(n))
				}
				if !ok {
					t.Errorf("%s: want exit %d, %q and none of %q; got %d:\n%s%s", strings.Join(args, " "), r.code, r.want, r.not, res.code, out, res.stderr)
				}
			}
		})
	}
}

// jsonFindings is check's JSON as lines, one per finding of its pending, drift and hidden lists:
// "<list>/<class> <resource> <path> <file>:<line>" (file and line: where a hidden change's rule
// is written, where a drift or pending change was made).
func jsonFindings(t *testing.T, out string) string {
	t.Helper()
	var j map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("check's JSON: %v:\n%s", err, out)
	}
	var b strings.Builder
	for _, list := range []string{"pending", "drift", "hidden"} {
		var fs []fieldJSON
		if err := json.Unmarshal(j[list], &fs); err != nil {
			t.Fatalf("check's JSON %s: %v:\n%s", list, err, out)
		}
		for _, f := range fs {
			fmt.Fprintf(&b, "%s/%s %s %s %s:%d\n", list, f.Class, f.Resource, f.Path, f.File, f.Line)
		}
	}
	return b.String()
}

// gitChange is the hpa-replicas fixture with rules generated for it and its desired objects
// changed in Git, as a pull request changes a package.
type gitChange struct {
	dir     string   // the changed manifest's, and the case's files
	rules   string   // rules.yml generated from the unchanged fixture (generatedRules)
	desired string   // dir/desired.yaml, the changed manifest
	inputs  []string // -d desired and the fixture's live objects
}

// changedInGit generates rules for the hpa-replicas fixture (generatedRules) and writes its
// desired objects as edit changes them to dir/desired.yaml.
func changedInGit(t *testing.T, edit func(string) string) gitChange {
	t.Helper()
	return changedFrom(t, generatedRules(t), edit)
}

// generatedRules generates rules for the unchanged hpa-replicas fixture into rules.yml of a
// directory of t's, and returns its path: the same for every change of the fixture, so a test
// judging several changes generates once (each generate is a verified run of kapp's engine).
func generatedRules(t *testing.T) string {
	t.Helper()
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, scenario(t, "hpa-replicas")...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	return rules
}

// changedFrom is changedInGit with the rules generated already (generatedRules), left
// unchanged; the changed manifest is written in a directory of t's.
func changedFrom(t *testing.T, rules string, edit func(string) string) gitChange {
	t.Helper()
	fix := scenario(t, "hpa-replicas")
	g := gitChange{dir: t.TempDir(), rules: rules}
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

// configOf is a kapp Config holding the rebaseRules items rules.
func configOf(rules string) string {
	return "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n" + rules
}

// keepResources restores a container's resources from the live object while the manifest has
// none: it hides their removal in Git.
var keepResources = configOf(`- type: copy
  sources: [new, existing]
  paths:
  - [spec, template, spec, containers, {allIndexes: true}, resources]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)

// guessImageRule takes the cluster's image whenever the manifest's starts with "nginx:1.2":
// random mutations pass it, a bump in Git to nginx:1.26 does not.
var guessImageRule = ytttest.WebImageRule(`return e if n.startswith("nginx:1.2") else n`)
