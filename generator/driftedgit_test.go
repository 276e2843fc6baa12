package generator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/internal/ytttest"
)

// A ytt rule keyed to the value Git now holds (it takes the cluster's bucket when the manifest's
// is "archive") hides that change; check asks about the value Git holds for a change made in Git
// (the mutation check's random values cannot name it). When the live object had drifted too
// (someone set the bucket by hand), the field is drift, kapp diffs against the live object, and
// the change was never asked about: check exited 0 while kapp would never apply it (issue 23).
func TestCheckAsksAboutAGitChangeWhereTheLiveObjectDriftedToo(t *testing.T) {
	read := func(name string) string {
		bs, err := os.ReadFile(filepath.Join("..", "fixtures", "crd-defaults", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(bs)
	}
	desired := strings.Replace(read("desired.yaml"), "    bucket: backups\n", "    bucket: archive\n", 1)
	rule := yttRuleConfig(`#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
spec:
  storage:
    #@ b = data.values.new["spec"]["storage"]["bucket"]
    bucket: #@ data.values.existing["spec"]["storage"]["bucket"] if b == "archive" else b
`)
	for _, live := range []string{"backups", "by-hand"} { // what kapp applied; drifted since
		in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", desired)}, Namespace: "crd-defaults",
			Live: []string{writeFile(t, "live.yaml", strings.Replace(read("live.yaml"), "    bucket: backups\n", "    bucket: "+live+"\n", 1))}}
		c, err := generator.Check(in, []string{writeFile(t, "rules.yml", rule)})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(hiddenPaths(c)); got != "[spec.storage.bucket]" {
			t.Errorf("live bucket %s: hidden %s, want [spec.storage.bucket]; %+v drift %+v pending %+v", live, got, c.Hidden, c.Drift, c.Pending)
		}
	}
}

// hpaWith returns the hpa-replicas inputs with the Deployment's image in the manifest set to
// image and, unless original, the live Deployment without kapp.k14s.io/original (a first deploy
// by kapp, an object it takes over).
func hpaWith(t *testing.T, image string, original bool) generator.Inputs {
	read := func(name string) string {
		bs, err := os.ReadFile(filepath.Join("..", "fixtures", "hpa-replicas", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(bs)
	}
	live := read("live.yaml")
	if !original {
		var kept []string
		for i, l := range strings.SplitAfter(live, "\n") {
			if i < 40 && strings.Contains(l, "kapp.k14s.io/original") { // the Deployment's annotations and their managedFields
				continue
			}
			kept = append(kept, l)
		}
		live = strings.Join(kept, "")
	}
	desired := strings.Replace(read("desired.yaml"), "image: nginx:1.25\n", "image: "+image+"\n", 1)
	return generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", desired)}, Live: []string{writeFile(t, "live.yaml", live)}, Namespace: "hpa-replicas"}
}

// imageOverlay is a Config whose ytt rule sets the web container's image to pick(n, e), n the
// manifest's image and e the live one.
func imageOverlay(pick string) string {
	return ytttest.Config(ytttest.WebImageRule(pick))
}

// A rule that rewrites a changed value into a third one (another registry's image) lets kapp
// report an update, and apply the rule's value: the mutation check asked only that kapp report
// an update, and check said the change made in Git was applied on deploy (probe 23 finding 15).
func TestCheckRuleRewritingAChangeIsHidden(t *testing.T) {
	rules := writeFile(t, "rules.yml", imageOverlay(`return n if n == e else "registry.evil.example/" + n`))
	for _, image := range []string{"nginx:1.25", "nginx:1.27"} { // as applied; changed in Git
		c, err := generator.Check(hpaWith(t, image, true), []string{rules, classicRules})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(hiddenPaths(c)); got != "[spec.template.spec.containers[name=web].image]" || len(c.Pending) != 0 {
			t.Errorf("image %s: hidden %s, pending %+v; want the image hidden, nothing pending", image, got, c.Pending)
		}
	}
}

// Without kapp.k14s.io/original a change made in Git is drift (it cannot be told from one made
// on the cluster); a rule keyed to the value Git now holds hid it and check exited 0 with a drift
// warning (probe 23 finding 7). kapp's built-in rules alone apply the manifest's value.
func TestCheckDriftARuleHidesWithoutOriginal(t *testing.T) {
	rules := writeFile(t, "rules.yml", imageOverlay(`return e if n == "nginx:1.27" else n`))
	c, err := generator.Check(hpaWith(t, "nginx:1.27", false), []string{rules, classicRules})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(hiddenPaths(c)); got != "[spec.template.spec.containers[name=web].image]" {
		t.Errorf("hidden %s, want the image; drift %+v", got, c.Drift)
	}
	// the same change without the rule: drift, not hidden
	if c, err = generator.Check(hpaWith(t, "nginx:1.27", false), []string{classicRules}); err != nil || len(c.Hidden) != 0 {
		t.Errorf("without the rule: hidden %v, err %v", c.Hidden, err)
	}
}

// A field removed in Git (the container's resources), on an object without
// kapp.k14s.io/original whose managedFields credit the applier with it, that a rule copies back
// from the live object: kapp's built-in rules alone remove it, the rule keeps it for ever, and
// check exited 0 (probe4 finding 3). A plain copy and a ytt rule re-adding it alike.
func TestCheckRemovalARuleKeepsWithoutOriginal(t *testing.T) {
	copyRes := writeFile(t, "copy.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  path: [spec, template, spec, containers, {allIndexes: true}, resources]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	readd := writeFile(t, "readd.yml", readdResources)
	in := hpaWith(t, "nginx:1.25", false)
	bs, err := os.ReadFile(in.Desired[0])
	if err != nil {
		t.Fatal(err)
	}
	removed := strings.Replace(string(bs), "        resources:\n          requests:\n            cpu: 100m\n            memory: 64Mi\n", "", 1)
	if removed == string(bs) {
		t.Fatal("the fixture's container declares no resources block")
	}
	if err := os.WriteFile(in.Desired[0], []byte(removed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rules := range []string{copyRes, readd} {
		c, err := generator.Check(in, []string{rules, classicRules})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(hiddenPaths(c)); got != "[spec.template.spec.containers[name=web].resources]" {
			t.Errorf("%s: hidden %s, want the resources; unknown %+v", rules, got, c.Unknown)
		}
	}
	// without a rule keeping it kapp removes it: nothing hidden
	if c, err := generator.Check(in, []string{classicRules}); err != nil || len(c.Hidden) != 0 {
		t.Errorf("without the rule: hidden %v, err %v", c.Hidden, err)
	}
}

// kapp applies nothing of a resource whose object to apply (the manifest with the rules applied)
// carries kapp.k14s.io/noop or kapp.k14s.io/exists (op noop, keep) or the update strategy skip:
// check said a change made in Git there was applied on deploy, exit 0 (probe 23 findings 4, 5).
func TestCheckGitChangeKappNeverApplies(t *testing.T) {
	const copySkip = `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing]
  path: [metadata, annotations, kapp.k14s.io/update-strategy]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`
	annotate := func(t *testing.T, path, ann string) {
		bs, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(bs), "metadata:\n", "metadata:\n  annotations: {"+ann+"}\n", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	image := "spec.template.spec.containers[name=web].image"
	for _, tc := range []struct {
		name, desired, live string
		rules               []string
		hidden              string // the rule writing the annotation is a finding of its own
	}{
		{"manifest noop", `kapp.k14s.io/noop: ""`, "", nil, "[" + image + "]"},
		{"manifest exists", `kapp.k14s.io/exists: ""`, "", nil, "[" + image + "]"},
		{"skip copied from the live object", "", `kapp.k14s.io/update-strategy: skip`, []string{writeFile(t, "skip.yml", copySkip)},
			`[metadata.annotations["kapp.k14s.io/update-strategy"] ` + image + "]"},
	} {
		in := hpaWith(t, "nginx:1.27", true)
		if tc.desired != "" {
			annotate(t, in.Desired[0], tc.desired)
		}
		if tc.live != "" { // the live Deployment's annotations are the first map under its metadata
			bs, _ := os.ReadFile(in.Live[0])
			if err := os.WriteFile(in.Live[0], []byte(strings.Replace(string(bs), "  annotations:\n", "  annotations:\n    "+tc.live+"\n", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c, err := generator.Check(in, append(tc.rules, classicRules))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(hiddenPaths(c)); got != tc.hidden || len(c.Pending) != 0 {
			t.Errorf("%s: hidden %s, pending %+v; want %s hidden, nothing pending", tc.name, got, c.Pending, tc.hidden)
		}
	}
}

// readdResources is a ytt rule that re-adds the web container's resources from the live object
// once the manifest drops them: it hides that removal made in Git.
var readdResources = ytttest.Config(ytttest.DeploymentRule(`def lacks():
  return "resources" not in data.values.new["spec"]["template"]["spec"]["containers"][0]
end`, `spec:
  template:
    spec:
      containers:
      #@overlay/match by="name"
      - name: web
        #@ if lacks():
        #@overlay/match missing_ok=True
        resources: #@ data.values.existing["spec"]["template"]["spec"]["containers"][0]["resources"]
        #@ end`))
