package generator_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/generator/verify"
)

// ownedKeys writes a ConfigMap pair: the manifest declares three keys under field (data, or
// metadata.annotations), kapp applied it, and a controller has since added n keys there (its
// managedFields entry owns them). It returns the inputs for generate.
func ownedKeys(t *testing.T, field []string, n int) generator.Inputs {
	t.Helper()
	return keysAdded(t, field, n, "my-controller")
}

// keysAdded is ownedKeys with the keys owned by manager, or by no managedFields entry when it is
// "": added during admission of kapp's write.
func keysAdded(t *testing.T, field []string, n int, manager string) generator.Inputs {
	t.Helper()
	declared := map[string]any{"declared-0": "v0", "declared-1": "v1", "declared-2": "v2"}
	all := map[string]any{}
	owned := map[string]any{}
	for k, v := range declared {
		all[k] = v
	}
	for i := range n {
		k := fmt.Sprintf("ctrl.example.com/key-%05d", (i*7919)%n) // neither sorted nor reversed
		if field[0] == "data" {
			k = fmt.Sprintf("key-%05d", (i*7919)%n)
		}
		all[k] = fmt.Sprint("value-", i)
		owned["f:"+k] = map[string]any{}
	}
	desired := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big", "namespace": "ns"}}
	if err := unstructured.SetNestedField(desired, declared, field...); err != nil {
		t.Fatal(err)
	}
	labels := map[string]any{"kapp.k14s.io/app": "1", "kapp.k14s.io/association": "v1.8d1b75f1a6d660f85fc4e888d916c847"}
	original := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big", "namespace": "ns", "labels": labels}}
	if err := unstructured.SetNestedField(original, declared, field...); err != nil {
		t.Fatal(err)
	}
	originalJSON, err := json.Marshal(original)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{
		"name": "big", "namespace": "ns", "uid": "u", "resourceVersion": "1", "creationTimestamp": "2026-11-22T04:40:50Z", "labels": labels,
		"annotations": map[string]any{"kapp.k14s.io/identity": "v1;ns//ConfigMap/big;v1", "kapp.k14s.io/original": string(originalJSON), "kapp.k14s.io/original-diff-md5": "x"},
	}}
	kappOwns := map[string]any{"f:metadata": map[string]any{
		"f:annotations": map[string]any{".": map[string]any{}, "f:kapp.k14s.io/identity": map[string]any{}, "f:kapp.k14s.io/original": map[string]any{}, "f:kapp.k14s.io/original-diff-md5": map[string]any{}},
		"f:labels":      map[string]any{".": map[string]any{}, "f:kapp.k14s.io/app": map[string]any{}, "f:kapp.k14s.io/association": map[string]any{}},
	}}
	ctrlOwns := map[string]any{}
	for k := range declared {
		if err := unstructured.SetNestedField(kappOwns, map[string]any{}, append(fieldsV1(field), "f:"+k)...); err != nil {
			t.Fatal(err)
		}
	}
	if err := unstructured.SetNestedField(ctrlOwns, owned, fieldsV1(field)...); err != nil {
		t.Fatal(err)
	}
	liveField, _, _ := unstructured.NestedMap(live, field...)
	if liveField == nil {
		liveField = map[string]any{}
	}
	for k, v := range all {
		liveField[k] = v
	}
	if err := unstructured.SetNestedField(live, liveField, field...); err != nil {
		t.Fatal(err)
	}
	entries := []any{map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": kappOwns, "manager": "kapp", "operation": "Update", "time": "2026-11-22T04:40:50Z"}}
	if manager != "" {
		entries = append(entries, map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": ctrlOwns, "manager": manager, "operation": "Update", "time": "2026-11-22T04:40:51Z"})
	}
	if err := unstructured.SetNestedSlice(live, entries, "metadata", "managedFields"); err != nil {
		t.Fatal(err)
	}
	write := func(name string, obj map[string]any) string {
		bs, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		return writeFile(t, name, string(bs))
	}
	return generator.Inputs{Desired: []string{write("desired.json", desired)}, Live: []string{write("live.json", live)}, Namespace: "ns"}
}

func fieldsV1(field []string) []string {
	out := make([]string, len(field))
	for i, f := range field {
		out[i] = "f:" + f
	}
	return out
}

// TestOwnedKeysWorkLinear (issue 23, bounds): generate's work on one object grows linearly with the
// keys of a map a controller owns, or that admission added (no managedFields entry: a kind-wide
// rule where the manifest wins, which was one {regex} of every key). A copy path per key (one {regex} alternation of them all) made
// kapp's engine deep-copy the whole live object for every key, in the verification, the mutation
// checks and every kapp deploy: 16x the allocations for 4x the keys. Work is counted in
// allocations, which do not depend on the machine's load.
func TestOwnedKeysWorkLinear(t *testing.T) {
	if raceDetector {
		t.Skip("allocations are not the code's under -race")
	}
	for _, tc := range []struct {
		field   []string
		manager string
	}{{[]string{"data"}, "my-controller"}, {[]string{"metadata", "annotations"}, "my-controller"}, {[]string{"metadata", "annotations"}, ""}} {
		field := tc.field
		allocated := func(n int) (bytes, allocs float64) {
			in := keysAdded(t, field, n, tc.manager)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			g, err := generator.Generate(in, synth.Options{})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			owned := 0
			for _, r := range g.Rules {
				owned += len(r.Owned)
			}
			if owned != 1 && tc.manager != "" { // the admission case is about the work, whatever the rule
				t.Fatalf("%v: %d owned maps, want 1: the test is not about the rule shape it names", field, owned)
			}
			if v := g.Verification; !v.OK() || v.KeptPairs != 1 || v.MutationsRun < 3 && tc.manager != "" {
				t.Fatalf("%v, %d keys: %s (%d mutations), residual %v, hidden %v", field, n, v.Summary(), v.MutationsRun, v.Residual, v.Hidden)
			}
			return float64(after.TotalAlloc - before.TotalAlloc), float64(after.Mallocs - before.Mallocs)
		}
		smallBytes, small := allocated(300)
		largeBytes, large := allocated(1200)
		t.Logf("%v %q: %.0f allocations (%.0f MB) at 300 keys, %.0f (%.0f MB) at 1200", field, tc.manager, small, smallBytes/1e6, large, largeBytes/1e6)
		if ratio := large / small; ratio > 5 {
			t.Errorf("%v: 4x the owned keys cost %.1fx the allocations (%.0f vs %.0f): superlinear", field, ratio, large, small)
		}
		if ratio := largeBytes / smallBytes; ratio > 5 {
			t.Errorf("%v: 4x the owned keys cost %.1fx the bytes allocated (%.0f MB vs %.0f MB): superlinear", field, ratio, largeBytes/1e6, smallBytes/1e6)
		}
	}
}

// TestOwnedMapHidesNoChangeInGit: with the rules generated for a map of many controller-owned
// keys, kapp's engine still shows a declared key changed, removed or added in Git (a key the
// controller owns too), and a key someone else added to the live object, under both bases.
func TestOwnedMapHidesNoChangeInGit(t *testing.T) {
	in := ownedKeys(t, []string{"data"}, 100)
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Verification.OK() || g.Verification.KeptPairs != 1 {
		t.Fatalf("%s: residual %v, hidden %v", g.Verification.Summary(), g.Verification.Residual, g.Verification.Hidden)
	}
	var buf strings.Builder
	for _, r := range g.Rules {
		for _, m := range r.Owned {
			buf.WriteString(strings.Join(m.Path, "."))
		}
	}
	if buf.String() != "data" {
		t.Fatalf("owned maps %q, want data: the test is not about the rule shape it names", buf.String())
	}
	load1 := func(p string) *unstructured.Unstructured {
		objs, err := load.Paths([]string{p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Unstructured
	}
	for _, c := range []struct {
		name       string
		edit, live func(data map[string]any)
	}{
		{name: "declared key changed", edit: func(d map[string]any) { d["declared-1"] = "changed" }},
		{name: "declared key removed", edit: func(d map[string]any) { delete(d, "declared-1") }},
		{name: "key added", edit: func(d map[string]any) { d["new-key"] = "x" }},
		{name: "controller's key declared", edit: func(d map[string]any) { d["key-00042"] = "mine" }},
		{name: "key added to the live object", live: func(d map[string]any) { d["added-by-hand"] = "x" }},
	} {
		desired, live := load1(in.Desired[0]), load1(in.Live[0])
		desired.SetNamespace("ns")
		for obj, f := range map[*unstructured.Unstructured]func(map[string]any){desired: c.edit, live: c.live} {
			if f == nil {
				continue
			}
			data, _, _ := unstructured.NestedMap(obj.Object, "data")
			f(data)
			if err := unstructured.SetNestedMap(obj.Object, data, "data"); err != nil {
				t.Fatal(err)
			}
		}
		res, err := verify.Verify([]verify.Pair{{Desired: desired, Live: live}}, append(unstructuredOf(g.Set.Configs), g.Config))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range verify.Bases() {
			if res[0].Op[b] != verify.OpUpdate {
				t.Errorf("%s: kapp's op under the %s base is %s, want update", c.name, b, res[0].Op[b])
			}
		}
	}
}

// TestOwnedMapRulesLintAsOne: lint judges the three rules of an owned map together (the first
// alone hides every key of the map, the last copies the manifest's back): the generated rules lint
// clean, and the same rules copying back only some keys hide the others, an error.
func TestOwnedMapRulesLintAsOne(t *testing.T) {
	in := ownedKeys(t, []string{"data"}, 40)
	g, err := generator.Generate(in, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := emit.WriteRules(&buf, g.Rules, emit.Header{Version: "test", Options: emit.Options{Desired: in.Desired}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "- type: remove\n  paths:\n  - [data, {regex: ") {
		t.Fatalf("no owned map in the generated rules:\n%s", buf.String())
	}
	got, _, err := generator.Lint(in, []string{writeFile(t, "rebase-rules.yml", buf.String())})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Errorf("generated Config has findings: %+v", got)
	}
	// the owned map's rules, past kapp's artifact rule (first, with its own every-key regex)
	owned := strings.Index(buf.String(), "- [data, ")
	partial := buf.String()[:owned] + strings.Replace(buf.String()[owned:], `{regex: "(?s)^.*$"}`, `{regex: "^declared-0$"}`, 1)
	if got, _, err = generator.Lint(in, []string{writeFile(t, "rebase-rules.yml", partial)}); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, f := range got {
		errs = append(errs, f.Message)
	}
	if joined := strings.Join(errs, "\n"); !strings.Contains(joined, "data.declared-1") || !strings.Contains(joined, "rebases a whole subtree") {
		t.Errorf("rules copying back one declared key: want the others hidden and the whole-map copy warned about, got %q", errs)
	}
}
