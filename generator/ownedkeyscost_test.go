package generator_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rebasegen/rebasegen/generator"
)

// TestOwnedKeysCostLinear (issue 23, probe19 P19-3): check of a ConfigMap holding n keys a
// controller wrote, named like digests, which a rule copies whole from the live object, allocates
// in proportion to n. kapp renders such keys in another order on each side of its diff (go-yaml's
// key order is not a total order for them), so it still updates the ConfigMap, and kapp's line
// diff of the two renderings kept a table of one int per pair of lines, built again for each op
// and diff text: check allocated 1.0 GB for 2,000 keys and 4.6 GB for 4,000 (peak RSS 1.1 GB at
// 4,000 keys with the rules generate writes). Counted in the bytes the check allocates, which do
// not depend on the machine's load: four times the keys may cost about four times the bytes,
// not sixteen; the verdict is kapp's either way (its update of the ConfigMap a residual ghost diff).
func TestOwnedKeysCostLinear(t *testing.T) {
	rule := writeFile(t, "copy.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nrebaseRules:\n"+
		"- {path: [data], type: copy, sources: [existing], resourceMatchers: [{apiVersionKindMatcher: {apiVersion: v1, kind: ConfigMap}}]}\n")
	allocated := map[int]uint64{}
	for _, n := range []int{1000, 4000} {
		in := digestKeyed(t, n)
		var c *generator.Checked
		c, allocated[n] = checkAllocating(t, in, rule)
		if len(c.Residual) != 1 || c.Residual[0].Resource.Name != "big" || len(c.Hidden)+len(c.Pending) != 0 {
			t.Fatalf("%d keys: residual %v, hidden %v, pending %v; want kapp's update of the ConfigMap (its keys reordered) residual, nothing else", n, c.Residual, c.Hidden, c.Pending)
		}
	}
	t.Logf("bytes allocated by check (keys: bytes): %v", allocated)
	if allocated[4000] > 5*allocated[1000] {
		t.Errorf("check allocated %d bytes for 1000 keys, %d for 4000: its work grows faster than the keys", allocated[1000], allocated[4000])
	}
}

// digestKeyed is a ConfigMap kapp deployed with no data, and n keys named like digests written
// since by the manager controller.
func digestKeyed(t *testing.T, n int) generator.Inputs {
	data, owned := map[string]any{}, map[string]any{}
	for i := range n {
		sum := sha256.Sum256([]byte(fmt.Sprint(i)))
		key := hex.EncodeToString(sum[:6]) + ".conf"
		data[key] = fmt.Sprint("value ", i)
		owned["f:"+key] = map[string]any{}
	}
	labels := map[string]any{"kapp.k14s.io/app": "1700000000000000000", "kapp.k14s.io/association": "v1.9f8d7dfbbec5336e5f6082e5636c7337"}
	original, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big", "namespace": "probe", "labels": labels}})
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": data, "metadata": map[string]any{
		"name": "big", "namespace": "probe", "uid": "u1", "resourceVersion": "9", "creationTimestamp": "2026-11-26T01:45:14Z", "labels": labels,
		"annotations": map[string]any{"kapp.k14s.io/identity": "v1;probe//ConfigMap/big;v1", "kapp.k14s.io/original": string(original)},
		"managedFields": []any{
			map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kapp", "operation": "Update", "time": "2026-11-26T01:45:14Z",
				"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{"f:kapp.k14s.io/app": map[string]any{}, "f:kapp.k14s.io/association": map[string]any{}},
					"f:annotations": map[string]any{"f:kapp.k14s.io/identity": map[string]any{}, "f:kapp.k14s.io/original": map[string]any{}}}}},
			map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "controller", "operation": "Update", "time": "2026-11-26T01:46:14Z",
				"fieldsV1": map[string]any{"f:data": owned}}}}}
	desired := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big"}}
	return generator.Inputs{Desired: []string{writeJSON(t, "desired.json", desired)}, Live: []string{writeJSON(t, "live.json", live)}, Namespace: "probe"}
}
