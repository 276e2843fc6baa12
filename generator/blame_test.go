package generator_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/internal/kapptest"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// A hidden change names the rule that hides it, and lint's matchers match as kapp's (probe10
// P10-7): the change was blamed first on a copy from [new] kapp applied before the hiding copy
// (a-undo.yml before z-hide.yml), and on a generated ytt rule matching another Service by name,
// where the hiding rule's matcher holds only once kapp's built-in rules copied the live clusterIP
// (which lint called a matcher matching nothing). Oracles: kapp's own deploy diff with each rule
// file alone (the one blamed keeps the manifest's value from being applied, the others do not),
// and the line of the hiding rule in its file.
func TestHiddenChangeNamesTheRuleThatHidesIt(t *testing.T) {
	copyRule := func(sources, path, matcher string) string {
		return "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [" + sources + "]\n  paths:\n  - " + path + "\n  resourceMatchers:\n  - " + matcher + "\n"
	}
	image := "[spec, template, spec, containers, {allIndexes: true}, image]"
	web := "kindNamespaceNameMatcher: {kind: Deployment, namespace: hpa-replicas, name: web}"
	notEmptyIP := `andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: v1, kind: Service}
      - notMatcher: {matcher: {emptyFieldMatcher: {path: [spec, clusterIP]}}}`
	services := fixtureEdited(t, "services", "Service", func(u *unstructured.Unstructured) {
		if err := unstructured.SetNestedField(u.Object, "evil", "spec", "selector", "app.kubernetes.io/name"); err != nil {
			t.Fatal(err)
		}
	})
	generated, _ := generatedRules(t, fixture("services"))
	for _, tc := range []struct {
		name   string
		in     generator.Inputs
		others []string // rule files that hide nothing alone, kapp applying them before the hider
		hider  string
		kind   string // of the resources changed in Git
		value  func(map[string]any) any
		want   int // hidden fields
	}{
		{"copy from new before it", imageBumped(t, fixture("hpa-replicas")),
			[]string{writeFile(t, "a-undo.yml", copyRule("new", image, web))}, writeFile(t, "z-hide.yml", copyRule("existing", image, web)), "Deployment",
			func(o map[string]any) any {
				return o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]
			}, 1},
		{"matcher true once kapp's built-in rules ran", services,
			[]string{generated}, writeFile(t, "hide.yml", copyRule("existing", "[spec, selector]", notEmptyIP)), "Service",
			func(o map[string]any) any { return o["spec"].(map[string]any)["selector"] }, 3},
	} {
		// the oracle: kapp applies the manifest's value under both bases with each other file
		// alone, never with the hider alone
		applied := func(files []string) (n int) {
			for _, ch := range kapptest.BothBases(t, tc.in.Desired, tc.in.Live[0], tc.in.Namespace, files) {
				if kapptest.Updates(tc.kind, tc.value)(ch.Change) {
					n++
				}
			}
			return n
		}
		for _, f := range tc.others {
			if got := applied([]string{f}); got != 2*tc.want {
				t.Fatalf("%s: oracle: kapp with %s alone applies %d changed values, want %d", tc.name, f, got, 2*tc.want)
			}
		}
		if got := applied([]string{tc.hider}); got != 0 {
			t.Fatalf("%s: oracle: kapp with %s alone applies %d changed values, want none", tc.name, tc.hider, got)
		}
		c, err := generator.Check(tc.in, append(slices.Clone(tc.others), tc.hider))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Hidden) != tc.want {
			t.Fatalf("%s: hidden %+v, want %d", tc.name, c.Hidden, tc.want)
		}
		for _, h := range c.Hidden {
			if h.At.File != tc.hider || h.At.Line != 4 || h.At.Key != "rebaseRules[0]" {
				t.Errorf("%s: %s %s blamed at %+v, want %s:4 rebaseRules[0] (its `- type: copy` line)", tc.name, h.Resource, h.Path, h.At, tc.hider)
			}
			for _, f := range tc.others {
				if strings.Contains(h.Rule, f) {
					t.Errorf("%s: %s %s blames %s, which hides nothing: %s", tc.name, h.Resource, h.Path, f, h.Rule)
				}
			}
		}
		for _, f := range c.Lint {
			if strings.Contains(f.Message, "matches none") {
				t.Errorf("%s: lint: %s:%d: %s, where kapp's rule hides the change", tc.name, f.File, f.Line, f.Message)
			}
		}
		got, _, err := generator.Lint(tc.in, []string{tc.hider})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range got {
			if strings.Contains(f.Message, "matches none") {
				t.Errorf("%s: lint alone: %s:%d: %s, where kapp's rule hides the change", tc.name, f.File, f.Line, f.Message)
			}
		}
	}
}

// A change hidden with two rule files in force is blamed on the file without whose rules it
// would not be hidden, whatever the order of --rules (newcomer11 N11-3): with the generated rules
// first and the classic hand rule copying every Deployment's containers from the cluster second,
// a removal of the containers (and of the template, the pod spec above them) was blamed on the
// generated rules, whose regeneration cannot help, and on the hand rule in the other order.
// Oracle: kapp's own deploy diff of the manifest without the containers, with each file alone:
// the object kapp applies holds the removed image with the hand rule, not with the generated
// rules.
func TestHiddenChangeBlameIndependentOfRulesOrder(t *testing.T) {
	in := fixture("hpa-replicas")
	generated, _ := generatedRules(t, in)
	hand := writeFile(t, "hand.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [existing, new]
  path: [spec, template, spec, containers]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}
`)
	removed := fixtureEdited(t, "hpa-replicas", "Deployment", func(u *unstructured.Unstructured) {
		unstructured.RemoveNestedField(u.Object, "spec", "template", "spec", "containers")
	})
	keepsImage := func(files []string) bool {
		return kapptest.MakesEither(t, removed.Desired, removed.Live[0], removed.Namespace, files, func(ch ctldiff.Change) bool {
			if ch.NewResource() == nil || ch.NewResource().Kind() != "Deployment" {
				return false
			}
			cs, _, _ := unstructured.NestedSlice(ch.NewResource().UnstructuredObject(), "spec", "template", "spec", "containers")
			return len(cs) > 0 && cs[0].(map[string]any)["image"] == "nginx:1.25"
		})
	}
	if !keepsImage([]string{hand}) || keepsImage([]string{generated}) {
		t.Fatal("oracle: kapp should put the removed containers back with the hand rule alone, not with the generated rules alone")
	}
	var outputs [][]byte
	for _, files := range [][]string{{generated, hand}, {hand, generated}} {
		c, err := generator.Check(in, files)
		if err != nil {
			t.Fatal(err)
		}
		removals := 0
		for _, h := range c.Hidden {
			if h.At.File != hand || h.At.Line != 4 || strings.Contains(h.Rule, generated) {
				t.Errorf("--rules %v: %s %s blamed on %s (%+v), want %s:4 alone", files, h.Resource, h.Path, h.Rule, h.At, hand)
			}
			if h.Removed {
				removals++
			}
		}
		if removals == 0 {
			t.Errorf("--rules %v: no removal hidden: %+v", files, c.Hidden)
		}
		outputs = append(outputs, findingsJSON(t, c))
	}
	sameFindings(t, outputs)
}

// findingsJSON is c's findings as JSON, to compare runs.
func findingsJSON(t *testing.T, c *generator.Checked) []byte {
	t.Helper()
	bs, err := json.Marshal(c.Findings(verdict.Gate{}))
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// sameFindings fails unless every run's findings (findingsJSON), one per order of --rules, are
// the first's.
func sameFindings(t *testing.T, outputs [][]byte) {
	t.Helper()
	for _, o := range outputs[1:] {
		if !bytes.Equal(outputs[0], o) {
			t.Errorf("findings depend on the order of --rules:\n%s\n%s", outputs[0], o)
		}
	}
}
