package verdict

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// applierMarks are the annotations an applier writes its own record in; the managedFields
// entries owning one are the applier's.
var applierMarks = []string{kappconv.Original, "kubectl.kubernetes.io/last-applied-configuration"}

// controllerMetadata lists the live object's annotations and labels that may change between the
// capture and the deploy without the app: those the manifest does not declare, and those
// managedFields gives to a manager other than the applier (a controller took them over, as the
// Deployment controller writes deployment.kubernetes.io/revision on every rollout). kapp's own
// (kapp.k14s.io/...) and the appliers' records are left: kapp rewrites them on every deploy and
// diffs against them, so they are the deploy's, not a controller's.
func controllerMetadata(desired, live map[string]any) []fielddiff.Path {
	others := othersOwn(live)
	var out []fielddiff.Path
	for _, field := range []string{"annotations", "labels"} {
		have := nestedMap(live, "metadata", field)
		want := nestedMap(desired, "metadata", field)
		for _, k := range slices.Sorted(maps.Keys(have)) {
			if strings.HasPrefix(k, "kapp.k14s.io/") || slices.Contains(applierMarks, k) {
				continue
			}
			if _, declared := want[k]; declared && !others[field+"/"+k] {
				continue
			}
			out = append(out, fielddiff.FromFields([]string{"metadata", field, k}))
		}
	}
	return out
}

// othersOwn is the annotations and labels ("annotations/key", "labels/key") that managedFields
// gives to a manager other than the applier; none when no entry is recognised as the applier's.
func othersOwn(live map[string]any) map[string]bool {
	v, _, _ := unstructured.NestedFieldNoCopy(live, "metadata", "managedFields")
	entries, _ := v.([]any)
	owned := make([]map[string]bool, len(entries))
	applier := -1
	for i, e := range entries {
		owned[i] = map[string]bool{}
		em, _ := e.(map[string]any)
		for _, field := range []string{"annotations", "labels"} {
			keys := nestedMap(em, "fieldsV1", "f:metadata", "f:"+field)
			for k := range keys {
				if key, ok := strings.CutPrefix(k, "f:"); ok {
					owned[i][field+"/"+key] = true
				}
			}
		}
		for _, mark := range applierMarks {
			if owned[i]["annotations/"+mark] && applier < 0 {
				applier = i
			}
		}
	}
	out := map[string]bool{}
	if applier < 0 {
		return out
	}
	name := func(i int) any { m, _ := entries[i].(map[string]any); return m["manager"] }
	for i := range entries {
		if name(i) == name(applier) {
			continue
		}
		for k := range owned[i] {
			out[k] = true
		}
	}
	return out
}

// nestedMap is the map at fields in obj, nil when a step is missing or of another type.
func nestedMap(obj map[string]any, fields ...string) map[string]any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	m, _ := v.(map[string]any)
	return m
}
