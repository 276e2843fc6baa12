package generator_test

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
)

// TestMutationCheckProbesPerResource (probe4 finding 9): the mutation check asks kapp's engine
// about a resource a fixed number of times, whatever the number of values the rules act on: a
// rule copying a ConfigMap's data, or a Deployment's containers, from the live object hides each
// of N declared values, and changing them one at a time took N rebases and N diffs of the whole
// object (a 25 KB ConfigMap did not finish in 2 minutes). Counted in the changed manifests kapp's
// engine is asked about, which do not depend on the machine's load; every value is still reported.
func TestMutationCheckProbesPerResource(t *testing.T) {
	for _, tc := range []struct {
		name  string
		make  func(t *testing.T, n int) (generator.Inputs, string)
		field string
	}{
		{"configmap data", bigConfigMap, "core/ConfigMap hpa-replicas/big data.k"},
		{"env list", bigEnv, "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].env[name=V"},
		// each value removed (issue 23: a declared scalar at a copy's path), the server giving none
		// back: removed together, as many rebases as the removals nest deep
		{"env values removed", func(t *testing.T, n int) (generator.Inputs, string) {
			in, _ := bigEnv(t, n)
			return in, writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+
				"- {path: [spec, template, spec, containers, {allIndexes: true}, env, {allIndexes: true}, value], type: copy, sources: [new, existing], resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]}\n")
		}, "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].env[name=V"},
		// the same rules matched on the object's content as well (outside probe 10, P10-6): kapp
		// decides the matcher on what it reads alone, so the values it does not read share a
		// rebase as under a matcher decided by the identity; each was a rebase of its own
		{"env values removed, matched on content", func(t *testing.T, n int) (generator.Inputs, string) {
			in, _ := bigEnv(t, n)
			return in, writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+
				"- {path: [spec, template, spec, containers, {allIndexes: true}, env, {allIndexes: true}, value], type: copy, sources: [new, existing], resourceMatchers: [{andMatcher: {matchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}, {emptyFieldMatcher: {path: [spec, paused]}}]}}]}\n")
		}, "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].env[name=V"},
		{"env values, matched on content", func(t *testing.T, n int) (generator.Inputs, string) {
			in, _ := bigEnv(t, n)
			return in, writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+
				"- {path: [spec, template, spec, containers, {allIndexes: true}, env, {allIndexes: true}, value], type: copy, sources: [existing], resourceMatchers: [{andMatcher: {matchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}, {notMatcher: {matcher: {hasAnnotationMatcher: {keys: [example.com/skip]}}}}]}}]}\n")
		}, "apps/Deployment hpa-replicas/web spec.template.spec.containers[name=web].env[name=V"},
	} {
		probes := map[int]int{}
		for _, n := range []int{50, 200} {
			in, rules := tc.make(t, n)
			c, err := generator.Check(in, []string{rules})
			if err != nil {
				t.Fatal(err)
			}
			hidden := 0
			for _, h := range c.Hidden {
				if strings.HasPrefix(h.String(), tc.field) {
					hidden++
				}
			}
			if hidden < n {
				t.Fatalf("%s, %d values: %d hidden under %s, want each: %v", tc.name, n, hidden, tc.field, c.Hidden)
			}
			probes[n] = c.MutationProbes
		}
		t.Logf("%s: %v changed manifests asked about (values: changed manifests)", tc.name, probes)
		if probes[200] > probes[50] {
			t.Errorf("%s: %d changed manifests for 50 values, %d for 200: the check's work grows with the values times the object", tc.name, probes[50], probes[200])
		}
	}
}

// bigConfigMap is a ConfigMap declaring n data keys, live as kapp applied it, and a rule copying
// its data from the live object.
func bigConfigMap(t *testing.T, n int) (generator.Inputs, string) {
	data, owned := map[string]any{}, map[string]any{}
	for i := range n {
		data[fmt.Sprintf("k%05d", i)] = fmt.Sprintf("v%d", i)
		owned[fmt.Sprintf("f:k%05d", i)] = map[string]any{}
	}
	labels := map[string]any{"kapp.k14s.io/app": "1700000000000000000", "kapp.k14s.io/association": "v1.x"}
	original, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": data,
		"metadata": map[string]any{"name": "big", "namespace": "hpa-replicas", "labels": labels}})
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": data, "metadata": map[string]any{
		"name": "big", "namespace": "hpa-replicas", "uid": "u1", "resourceVersion": "9", "creationTimestamp": "2026-11-26T01:45:14Z", "labels": labels,
		"annotations": map[string]any{"kapp.k14s.io/identity": "v1;hpa-replicas//ConfigMap/big;v1", "kapp.k14s.io/original": string(original)},
		"managedFields": []any{map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:data": owned},
			"manager": "kapp", "operation": "Update", "time": "2026-11-26T01:45:14Z"}}}}
	desired := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big"}, "data": data}
	return generator.Inputs{Desired: []string{writeJSON(t, "desired.json", desired)}, Live: []string{writeJSON(t, "live.json", live)}, Namespace: "hpa-replicas"},
		writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- {path: [data], type: copy, sources: [existing], resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: ConfigMap}}]}\n")
}

// bigEnv is the hpa-replicas fixture with n env entries in the container, declared and live (and
// in kapp's original), and a rule copying the containers from the live object.
func bigEnv(t *testing.T, n int) (generator.Inputs, string) {
	var env []any
	for i := range n {
		env = append(env, map[string]any{"name": fmt.Sprintf("V%05d", i), "value": fmt.Sprint(i)})
	}
	withEnv := func(obj map[string]any) {
		containers := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
		containers[0].(map[string]any)["env"] = env
	}
	docs := func(file string) []map[string]any {
		data, err := os.ReadFile("../fixtures/hpa-replicas/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, doc := range strings.Split(string(data), "\n---\n") {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatal(err)
			}
			if obj != nil {
				out = append(out, obj)
			}
		}
		return out
	}
	desired, live := docs("desired.yaml"), docs("live.yaml")
	withEnv(desired[0])
	withEnv(live[0])
	annotations := live[0]["metadata"].(map[string]any)["annotations"].(map[string]any)
	var original map[string]any
	if err := json.Unmarshal([]byte(annotations["kapp.k14s.io/original"].(string)), &original); err != nil {
		t.Fatal(err)
	}
	withEnv(original)
	bs, err := json.Marshal(original)
	if err != nil {
		t.Fatal(err)
	}
	annotations["kapp.k14s.io/original"] = string(bs)
	var ds, ls []string
	for i, d := range desired {
		ds = append(ds, writeJSON(t, fmt.Sprintf("desired%d.json", i), d))
	}
	for i, l := range live {
		ls = append(ls, writeJSON(t, fmt.Sprintf("live%d.json", i), l))
	}
	return generator.Inputs{Desired: ds, Live: ls, Namespace: "hpa-replicas"},
		writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- {path: [spec, template, spec, containers], type: copy, sources: [existing], resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]}\n")
}

func writeJSON(t *testing.T, name string, obj map[string]any) string {
	t.Helper()
	bs, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name, string(bs))
}

// TestCopyRuleCostLinearInValues (probe8 P8-4): check's work is linear in the values a copy
// rule's path selects. The probe's rule, copying each env value from [existing, new] (the live
// object has none: the manifest's values are kept), made each of kapp's rebases copy the whole
// object once per value (kapp's copy rule reads each value from a fresh copy of its source), so
// check took 25 s of CPU at 2,000 values and 60 s at 3,000. Counted in the bytes the check
// allocates, which do not depend on the machine's load: four times the values may cost about
// four times the bytes, not sixteen.
func TestCopyRuleCostLinearInValues(t *testing.T) {
	rule := writeFile(t, "env-rule.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- type: copy\n  sources: [existing, new]\n"+
		"  paths:\n  - [spec, template, spec, containers, {allIndexes: true}, env, {allIndexes: true}, value]\n"+
		"  resourceMatchers:\n  - apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}\n")
	manifest, err := os.ReadFile("../fixtures/hpa-replicas/desired.yaml")
	if err != nil {
		t.Fatal(err)
	}
	allocated := map[int]uint64{}
	for _, n := range []int{200, 800} {
		env := "        env:\n"
		for i := range n {
			env += fmt.Sprintf("        - name: E%d\n          value: v%d\n", i, i)
		}
		withEnv := strings.Replace(string(manifest), "        ports:\n", env+"        ports:\n", 1)
		if withEnv == string(manifest) {
			t.Fatal("the fixture's container declares no ports to put the env list before")
		}
		in := generator.Inputs{Desired: []string{writeFile(t, fmt.Sprintf("desired%d.yaml", n), withEnv)},
			Live: []string{"../fixtures/hpa-replicas/live.yaml"}, Namespace: "hpa-replicas"}
		var c *generator.Checked
		c, allocated[n] = checkAllocating(t, in, rule)
		for _, h := range c.Hidden {
			if strings.Contains(h.String(), ".env") {
				t.Fatalf("%d values: the live object has no env, kapp applies the manifest's, yet hidden: %s", n, h)
			}
		}
	}
	t.Logf("bytes allocated by check (values: bytes): %v", allocated)
	if allocated[800] > 6*allocated[200] {
		t.Errorf("check allocated %d bytes for 200 values, %d for 800: its work grows faster than the values", allocated[200], allocated[800])
	}
}

// TestHiddenValuesCostLinear (review item): naming the rules that hide each hidden value is
// linear in the values. Each answer decoded the resource's objects and resolved every rule's
// paths in them again, so check of a rule removing N declared env values (each hidden) did N
// times the resource's work per value. Counted in the bytes the check allocates, which do not
// depend on the machine's load: four times the values may cost four times the bytes, not
// sixteen; every value is still named with the rule.
func TestHiddenValuesCostLinear(t *testing.T) {
	rule := writeFile(t, "remove.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+
		"- {path: [spec, template, spec, containers, {allIndexes: true}, env, {allIndexes: true}, value], type: remove, resourceMatchers: [{apiVersionKindMatcher: {apiVersion: apps/v1, kind: Deployment}}]}\n")
	allocated := map[int]uint64{}
	for _, n := range []int{150, 600} {
		in, _ := bigEnv(t, n)
		var c *generator.Checked
		c, allocated[n] = checkAllocating(t, in, rule)
		named := 0
		for _, h := range c.Hidden {
			if strings.Contains(h.Path, ".env[name=V") && h.At.File == rule && h.At.Key == "rebaseRules[0]" && strings.Contains(h.Rule, "remove") {
				named++
			}
		}
		if named != n || len(c.Hidden) != n {
			t.Fatalf("%d values: %d of %d hidden env values named with %s rebaseRules[0], want each: %v", n, named, len(c.Hidden), rule, c.Hidden[:min(3, len(c.Hidden))])
		}
	}
	t.Logf("bytes allocated by check (values: bytes): %v", allocated)
	if allocated[600] > 4*allocated[150] {
		t.Errorf("check allocated %d bytes for 150 hidden values, %d for 600: its work grows faster than the values", allocated[150], allocated[600])
	}
}

// checkAllocating is generator.Check of in with rules, and the bytes it allocated, which do not
// depend on the machine's load as its time does.
func checkAllocating(t *testing.T, in generator.Inputs, rules ...string) (*generator.Checked, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := generator.Check(in, rules)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return c, after.TotalAlloc - before.TotalAlloc
}

// TestAnnotationsAddedInGitCostLinear (probe9 P9-4): check of a pull request adding N
// annotations to one object is linear in N under the rules generate writes for it. The
// hpa-replicas rules copy the HPA's annotations from the live object while the manifest declares
// none (emptyFieldMatcher), then remove every key and copy the manifest's back: each added
// annotation is a change kapp applies (pending), and the mutation check asked kapp's engine about
// each value alone, and kapp's rebase about each removal alone (a copy of the annotations from
// the live object), over the whole object. Counted in the changed manifests kapp's engine is
// asked about, which do not depend on the machine's load; each annotation is still judged: a
// rule removing them hides each.
func TestAnnotationsAddedInGitCostLinear(t *testing.T) {
	generated := rulesFile(t, emit.FormatConfig, func(s string) string {
		var keep []string
		for _, line := range strings.SplitAfter(s, "\n") {
			if !strings.HasPrefix(line, "#! Generated") && !strings.HasPrefix(line, "#! Regenerate") && !strings.HasPrefix(line, "#! Digest") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "")
	})
	hpaRule := func(name, rule string) string {
		return writeFile(t, name, "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n- "+rule+
			", resourceMatchers: [{apiVersionKindMatcher: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler}}]}\n")
	}
	for _, tc := range []struct {
		name     string
		rules    []string
		hidden   bool
		deployed bool // the live object holds the annotations, as kapp applied them
	}{
		{"generated rules", []string{generated}, false, false},
		// each annotation a removal the copy may put back (the live object has none)
		{"copied from the live object", []string{generated, hpaRule("copy.yml", `{type: copy, sources: [new, existing], paths: [[metadata, annotations, {regex: "^example"}]]`)}, false, false},
		{"removed by a rule", []string{generated, hpaRule("remove.yml", `{type: remove, paths: [[metadata, annotations, {regex: "^example"}]]`)}, true, false},
		// deployed: the live object holds them, and the copy keeps each once Git removes it
		{"kept by a copy from the live object", []string{generated, hpaRule("copy.yml", `{type: copy, sources: [new, existing], paths: [[metadata, annotations, {regex: "^example"}]]`)}, true, true},
	} {
		probes := map[int]int{}
		for _, n := range []int{40, 160} {
			added := func(annotations map[string]string) map[string]string {
				if annotations == nil {
					annotations = map[string]string{}
				}
				for i := range n {
					annotations[fmt.Sprintf("example.com/x%d", i)] = fmt.Sprintf("v%d", i)
				}
				return annotations
			}
			in := fixtureEdited(t, "hpa-replicas", "HorizontalPodAutoscaler", func(u *unstructured.Unstructured) { u.SetAnnotations(added(nil)) })
			if tc.deployed {
				in.Live = []string{editedKind(t, in.Live[0], "HorizontalPodAutoscaler", func(u *unstructured.Unstructured) {
					annotations := added(u.GetAnnotations())
					var original unstructured.Unstructured
					if err := original.UnmarshalJSON([]byte(annotations["kapp.k14s.io/original"])); err != nil {
						t.Fatal(err)
					}
					original.SetAnnotations(added(original.GetAnnotations()))
					bs, err := original.MarshalJSON()
					if err != nil {
						t.Fatal(err)
					}
					annotations["kapp.k14s.io/original"] = string(bs)
					u.SetAnnotations(annotations)
				})}
			}
			c, err := generator.Check(in, tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			pending, hidden := 0, 0
			for _, p := range c.Pending {
				if p.Finding.Path != nil && strings.Contains(p.Finding.Path.String(), "example.com/x") {
					pending++
				}
			}
			for _, h := range c.Hidden {
				if strings.Contains(h.Path, "example.com/x") && h.Removed == tc.deployed {
					hidden++
				}
			}
			// the HPA owns the Deployment's replicas, which the rules hand to it (masked)
			// deployed, nothing changes but in the mutation check, which also finds the map
			// removed whole kept
			if want := map[bool]int{false: 0, true: n}[tc.hidden]; pending != map[bool]int{false: n - want, true: 0}[tc.deployed] || hidden != want || len(c.Hidden) != want+map[bool]int{false: 0, true: 1}[tc.deployed] || len(c.Residual)+len(c.Unknown) != 0 ||
				fmt.Sprint(c.Masked) != "[apps/Deployment hpa-replicas/web spec.replicas]" {
				t.Fatalf("%s, %d annotations: %d pending, hidden %v, masked %v, residual %v, unknown %v; want %[8]d hidden, the others pending, the replicas masked, nothing else",
					tc.name, n, pending, c.Hidden, c.Masked, c.Residual, c.Unknown, want)
			}
			probes[n] = c.MutationProbes
		}
		t.Logf("%s: changed manifests asked about (annotations: manifests): %v", tc.name, probes)
		if probes[160] > probes[40]+8 {
			t.Errorf("%s: %d changed manifests for 40 annotations, %d for 160: the check asks kapp about each annotation over the whole object", tc.name, probes[40], probes[160])
		}
	}
}
