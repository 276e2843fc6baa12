package classify

import (
	"strings"
	"testing"
)

// A custom resource field its CRD's structural schema does not know (a typo) is pruned by the
// server when it stores the object: the manifest's mistake, unknown as for a built-in kind's
// unknown field, not drift (newcomer3 finding 6). A field under
// x-kubernetes-preserve-unknown-fields is kept by the server, so its absence is not that.
func TestCustomResourceFieldTheSchemaPrunesIsUnknown(t *testing.T) {
	const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: caches.shop.example.com}
spec:
  group: shop.example.com
  names: {kind: Cache, plural: caches, singular: cache}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              eviction: {type: string}
              ttlSeconds: {type: integer}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	const desired = crd + "---\napiVersion: shop.example.com/v1\nkind: Cache\nmetadata: {name: c, namespace: ns}\nspec: {ttlSeconds: 600, evictionn: lfu, extra: {anything: x}}\n"
	const live = crd + "---\napiVersion: shop.example.com/v1\nkind: Cache\nmetadata:\n  name: c\n  namespace: ns\n  managedFields:\n" +
		`  - {manager: kapp, operation: Update, apiVersion: shop.example.com/v1, time: "2026-11-22T04:41:10Z", fieldsType: FieldsV1, fieldsV1: {f:spec: {.: {}, f:ttlSeconds: {}}}}` + "\nspec: {ttlSeconds: 600}\n"
	got := classifyYAML(t, desired, live)
	f, ok := got["spec.evictionn"]
	if !ok || f.Class != Unknown || !f.Pruned || !strings.Contains(f.Evidence, "caches.shop.example.com") || f.Warning == "" {
		t.Errorf("spec.evictionn: %s (pruned %v): %s; want unknown, pruned, naming the CRD, with a warning", f.Class, f.Pruned, f.Evidence)
	}
	if f, ok := got["spec.extra"]; !ok || f.Pruned {
		t.Errorf("spec.extra: %s (pruned %v, found %v): %s; the schema preserves what it holds, the server does not prune it", f.Class, f.Pruned, ok, f.Evidence)
	}
}
