package generator_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// TestPendingChangesAskTheManifestOnce (probe9 P9-4, issue 23): a pull request adding annotations
// to the hpa-replicas HPA, under its generated rules (copy the empty annotations map, remove every
// key, copy the manifest's back), makes each annotation a pending change. Each is judged against
// the manifest with that one annotation reverted; the manifest itself, the changed pair of every
// one, was asked about again for each (and again with kapp's built-in rules alone, though only a
// change the rules in force hide needs that). Counted in the pairs kapp's engine is asked about,
// which do not depend on the machine's load: one more per added annotation, beside the reverted
// pair of each; every annotation is still pending and none hidden.
func TestPendingChangesAskTheManifestOnce(t *testing.T) {
	manifest, err := os.ReadFile("../fixtures/hpa-replicas/desired.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rules := writeFile(t, "rules.yml", `apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- type: copy
  sources: [new, existing]
  paths:
  - [metadata, annotations]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
      - emptyFieldMatcher: {path: [metadata, annotations]}
- type: remove
  paths:
  - [metadata, annotations, {regex: "(?s)^.*$"}]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
- type: copy
  sources: [new]
  paths:
  - [metadata, annotations, {regex: "(?s)^.*$"}]
  resourceMatchers:
  - apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}
`)
	const hpa = "kind: HorizontalPodAutoscaler\nmetadata:\n"
	probes := map[int]int{}
	for _, n := range []int{4, 16} {
		annotations := "  annotations:\n"
		for i := range n {
			annotations += fmt.Sprintf("    x%d: v%d\n", i, i)
		}
		withAnnotations := strings.Replace(string(manifest), hpa, hpa+annotations, 1)
		if withAnnotations == string(manifest) {
			t.Fatal("the fixture holds no HPA to annotate")
		}
		in := generator.Inputs{Desired: []string{writeFile(t, fmt.Sprintf("desired%d.yaml", n), withAnnotations)},
			Live: []string{"../fixtures/hpa-replicas/live.yaml"}, Namespace: "hpa-replicas"}
		c, err := generator.Check(in, []string{rules})
		if err != nil {
			t.Fatal(err)
		}
		pending := 0
		for _, p := range c.Pending {
			if strings.Contains(p.Finding.Path.String(), "metadata.annotations.x") {
				pending++
			}
		}
		if pending != n || len(c.Hidden) != 0 {
			t.Fatalf("%d annotations added in Git: %d pending, hidden %v; want each pending, none hidden", n, pending, c.Hidden)
		}
		probes[n] = c.PendingProbes
	}
	t.Logf("pairs kapp's engine was asked about for the pending changes (annotations: pairs): %v", probes)
	if more := probes[16] - probes[4]; more > 12 {
		t.Errorf("%d pairs for 4 annotations, %d for 16: %d more for 12 more pending changes, want one each", probes[4], probes[16], more)
	}
}
