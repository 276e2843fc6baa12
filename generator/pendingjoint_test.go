package generator_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// inGit is bigEnv's inputs (n env values, live as kapp last applied them) with a pull request:
// every value changed ("w" before it), and the items named in removed taken out of the manifest.
func inGit(t *testing.T, n int, removed ...string) generator.Inputs {
	in, _ := bigEnv(t, n)
	bs, err := os.ReadFile(in.Desired[0])
	if err != nil {
		t.Fatal(err)
	}
	var deployment map[string]any
	if err := json.Unmarshal(bs, &deployment); err != nil {
		t.Fatal(err)
	}
	container := deployment["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	var env []any
	for _, e := range container["env"].([]any) {
		item := e.(map[string]any)
		if !slices.Contains(removed, item["name"].(string)) {
			env = append(env, map[string]any{"name": item["name"], "value": "w" + item["value"].(string)})
		}
	}
	container["env"] = env
	in.Desired[0] = writeJSON(t, "pr.json", deployment)
	return in
}

// envPath is the path findings name env item name's field by.
func envPath(name, field string) string {
	p := "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].env[name=" + name + "]"
	if field != "" {
		p += "." + field
	}
	return p
}

// TestPendingChangesOfOneResourceProbedTogether (issue 23, probe13 P13-3): a pull request changing
// every env value of a Deployment (or removing every other item) made each value a pending change
// judged against the manifest with that one change reverted: N diffs of an object of N values
// (200 values 23.6 s CPU, 500 over 300 s). The object kapp applies on the deploy, one rebase of
// the manifest, holds every change as Git declares it: kapp's engine is asked about the resource
// a fixed number of times, whatever N. Counted in the pairs kapp's engine is asked about, which do
// not depend on the machine's load; every change is still pending and none hidden.
func TestPendingChangesOfOneResourceProbedTogether(t *testing.T) {
	rules := writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+
		"- {path: [spec, replicas], type: copy, sources: [new, existing], resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]}\n")
	for _, removing := range []bool{false, true} {
		probes := map[int]int{}
		for _, n := range []int{8, 64} {
			var removed []string
			for i := 1; removing && i < n; i += 2 {
				removed = append(removed, fmt.Sprintf("V%05d", i))
			}
			c, err := generator.Check(inGit(t, n, removed...), []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			pending := map[string]bool{}
			for _, p := range c.Pending {
				pending[p.Resource.String()+" "+p.Finding.Path.String()] = true
			}
			for i := range n {
				name := fmt.Sprintf("V%05d", i)
				want := envPath(name, "value")
				if slices.Contains(removed, name) {
					want = envPath(name, "")
				}
				if !pending[want] {
					t.Errorf("%d values, removing %v: %s not pending: %v", n, removing, want, c.Pending)
				}
			}
			if len(c.Hidden) != 0 {
				t.Errorf("%d values, removing %v: hidden %v, want none", n, removing, c.Hidden)
			}
			probes[n] = c.PendingProbes
		}
		t.Logf("removing %v: pairs kapp's engine was asked about for the pending changes (values: pairs): %v", removing, probes)
		if probes[64] > probes[8] {
			t.Errorf("removing %v: %d pairs for 8 pending changes, %d for 64: one more per change", removing, probes[8], probes[64])
		}
	}
}

// TestPendingChangeHiddenAmongManyStillHidden: the joint probe proves a change applied only where
// the object kapp applies holds it as Git declares it. A ytt rule keyed on the values Git now holds
// (the mutation check's unpredictable values never meet it) keeps one of 12 changed env values at
// the live value, rewrites another to a third value, and puts back an item Git removed: each is
// still reported hidden, naming its path, and no other change is.
func TestPendingChangeHiddenAmongManyStillHidden(t *testing.T) {
	const overlay = `#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@ def valued(name, value):
#@   return lambda i, left, right: "name" in left and left["name"] == name and "value" in left and left["value"] == value
#@ end
#@ env = data.values.new["spec"]["template"]["spec"]["containers"][0]["env"]
#@overlay/match by=overlay.all
---
spec:
  template:
    spec:
      containers:
      #@overlay/match by="name"
      - name: web
        env:
        #@overlay/match by=valued("V00003", "w3"), expects="0+"
        - value: "3"
        #@overlay/match by=valued("V00009", "w9"), expects="0+"
        - value: x9
        #@ if not [e for e in env if e["name"] == "V00011"]:
        #@overlay/append
        - name: V00011
          value: "11"
        #@ end
`
	rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- ytt:
    overlayContractV1:
      overlay.yml: |
        `+strings.ReplaceAll(strings.TrimSpace(overlay), "\n", "\n        ")+`
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	c, err := generator.Check(inGit(t, 12, "V00011"), []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	var hidden []string
	for _, h := range c.Hidden {
		if strings.Contains(h.String(), ".env[") {
			hidden = append(hidden, h.String())
			if h.Hypothetical || !strings.Contains(h.Rule, "rules.yml") {
				t.Errorf("%s: hypothetical %v, rule %q: want a change made in Git, hidden by rules.yml", h, h.Hypothetical, h.Rule)
			}
			// the value kept live is the question about the pending change's own finding (not
			// Rewritten: kapp applies the live value), not only the rebase of the changes made
			// in Git (gitChangesRewritten, Rewritten), which finds it too
			if h.String() == envPath("V00003", "value") && h.Rewritten {
				t.Errorf("%s: found only as rewritten, not as the pending change kapp's deploy keeps at the live value", h)
			}
		}
	}
	slices.Sort(hidden)
	want := []string{envPath("V00003", "value"), envPath("V00009", "value"), envPath("V00011", "")}
	if !slices.Equal(hidden, want) {
		t.Errorf("hidden env changes:\n%s\nwant:\n%s", strings.Join(hidden, "\n"), strings.Join(want, "\n"))
	}
	if len(c.Pending) != 9 {
		t.Errorf("%d pending changes, want the 9 other values changed in Git: %v", len(c.Pending), c.Pending)
	}
}
