package generator_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
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
			for _, against := range []bool{true, false} {
				for _, ch := range kappChanges(t, tc.in, files, against) {
					if ch.Op() == ctldiff.ChangeOpUpdate && ch.NewResource().Kind() == tc.kind && !reflect.DeepEqual(tc.value(ch.NewResource().UnstructuredObject()), tc.value(ch.ExistingResource().UnstructuredObject())) {
						n++
					}
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
