package generator_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// The mutation check also removes each map and list a rule could put back (a removal made in
// Git), on the manifest as it stands: a rule putting the removed value back while kapp's built-in
// rules alone do not hides the removal (probe4 finding 3, the rest: with kapp.k14s.io/original on
// the live object and nothing removed yet, a ytt rule re-adding the container's resources once
// the manifest drops them passed check; newcomer2 finding 6: the copy of metadata.annotations
// behind an emptyFieldMatcher, which generate wrote for kapp's empty annotations map, brought
// back an annotation the manifest dropped, and check passed until the removal was made).
func TestMutationCheckTriesRemovals(t *testing.T) {
	readd := writeFile(t, "readd.yml", readdResources)
	const hpa = "apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}"
	broad := writeFile(t, "broad.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [metadata, annotations]
  resourceMatchers:
  - andMatcher:
      matchers:
      - `+hpa+`
      - emptyFieldMatcher: {path: [metadata, annotations]}
- type: remove
  paths:
  - [metadata, annotations, kapp.k14s.io/original]
  - [metadata, annotations, kapp.k14s.io/original-diff-md5]
  resourceMatchers:
  - `+hpa+`
`)
	emptied := writeFile(t, "emptied.yml", strings.Replace(string(must(os.ReadFile(broad))), `- type: remove
  paths:
  - [metadata, annotations, kapp.k14s.io/original]
  - [metadata, annotations, kapp.k14s.io/original-diff-md5]
  resourceMatchers:
  - `+hpa+`
`, `- type: remove
  paths:
  - [metadata, annotations, {regex: "(?s)^.*$"}]
  resourceMatchers:
  - `+hpa+`
- type: copy
  sources: [new]
  paths:
  - [metadata, annotations, {regex: "(?s)^.*$"}]
  resourceMatchers:
  - `+hpa+`
`, 1))
	in := hpaWith(t, "nginx:1.25", true)
	annotated := generator.Inputs{Namespace: in.Namespace}
	for i, f := range []string{in.Desired[0], in.Live[0]} {
		s := string(must(os.ReadFile(f)))
		if i == 0 {
			s = strings.Replace(s, "kind: HorizontalPodAutoscaler\nmetadata:\n", "kind: HorizontalPodAutoscaler\nmetadata:\n  annotations:\n    team: payments\n", 1)
		} else {
			s = strings.Replace(s, "kind: HorizontalPodAutoscaler\nmetadata:\n  annotations:\n", "kind: HorizontalPodAutoscaler\nmetadata:\n  annotations:\n    team: payments\n", 1)
		}
		if !strings.Contains(s, "team: payments") {
			t.Fatalf("%s: no HorizontalPodAutoscaler to annotate", f)
		}
		if i == 0 {
			annotated.Desired = []string{writeFile(t, "desired.yaml", s)}
		} else {
			annotated.Live = []string{writeFile(t, "live.yaml", s)}
		}
	}
	for _, tc := range []struct {
		name  string
		in    generator.Inputs
		rules []string
		want  string // the hidden removal; "" none
	}{
		{"ytt rule re-adding resources", in, []string{readd, classicRules}, "spec.template.spec.containers[name=web].resources"},
		{"no rule re-adding them", in, []string{classicRules}, ""},
		{"copy of the whole annotations map", annotated, []string{broad, classicRules}, "metadata.annotations"},
		{"the map emptied after the copy", annotated, []string{emptied, classicRules}, ""},
	} {
		c, err := generator.Check(tc.in, tc.rules)
		if err != nil {
			t.Fatal(err)
		}
		got := hiddenPaths(c)
		if tc.want == "" && len(got) > 0 || tc.want != "" && !slices.Contains(got, tc.want) {
			t.Errorf("%s: hidden %v, want %q", tc.name, got, tc.want)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
