package yttreads

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"carvel.dev/kapp/pkg/kapp/yttresmod"
	"sigs.k8s.io/yaml"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns, generation: 3}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - {name: web, image: "nginx:1.27"}
`

const live = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns, annotations: {kapp.k14s.io/nonce: "17"}}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - {name: web, image: "nginx:1.25"}
status:
  conditions:
  - {type: Available, status: "True"}
`

// TestEvalRecordsWhatTheProgramReads: each value a program takes from data.values is recorded
// with its source and path, and the object it returns is the one kapp's own evaluation of the
// rule (yttresmod, the oracle) returns.
func TestEvalRecordsWhatTheProgramReads(t *testing.T) {
	for name, c := range map[string]struct {
		overlay string
		want    []string // "source path how"
	}{
		"a copy of the live replicas": {`#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
spec:
  replicas: #@ data.values.existing.spec.replicas
`, []string{"existing [spec replicas] 0"}},
		"a condition on the live status and nonce": {`#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@ ex = data.values.existing
#@ def available():
#@   for c in ex["status"]["conditions"]:
#@     if c["type"] == "Available": return c["status"] == "True"
#@   end
#@   return False
#@ end
#@overlay/match by=overlay.all
---
spec:
  #@ if available() and "x" not in ex["metadata"]["annotations"] and ex.metadata.annotations["kapp.k14s.io/nonce"] != "":
  replicas: 3
  #@ end
`, []string{"existing [status conditions] 2", "existing [status conditions 0 type] 0", "existing [status conditions 0 status] 0",
			"existing [metadata annotations x] 1", "existing [metadata annotations kapp.k14s.io/nonce] 0"}},
		"the text of the manifest's image, through a via function": {`#@ load("@ytt:data", "data")
#@ load("@ytt:json", "json")
#@ load("@ytt:overlay", "overlay")
#@ def keep(left, right):
#@   obj = json.decode(json.encode(left))
#@   if len(data.values.new.spec.template.spec.containers[0].image) % 2 == 0:
#@     obj["spec"]["replicas"] = data.values.existing["spec"]["replicas"]
#@   end
#@   return obj
#@ end
#@overlay/match by=overlay.all
#@overlay/replace via=keep
---
`, []string{"left [] 3", "new [spec template spec containers] 2", "new [spec template spec containers 0 image] 0", "existing [spec replicas] 0"}},
		// the resource overlaid (ytt's left: kapp's rebase has copied the live metadata into it)
		"the resource's generation, through a via function": {`#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@ def keep(left, right):
#@   if left["metadata"]["generation"] >= 10:
#@     return data.values.existing
#@   end
#@   return left
#@ end
#@overlay/match by=overlay.all
#@overlay/replace via=keep
---
`, []string{"left [metadata generation] 0", "left [] 3"}},
		"the resource's containers, through a via function on them": {`#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.all
---
spec:
  template:
    spec:
      #@overlay/replace via=lambda left, right: left if len(left[0]["image"]) % 2 else right
      containers: []
`, []string{"left [spec template spec containers] 2", "left [spec template spec containers 0 image] 0"}},
		"the resource's generation, through a match function": {`#@ load("@ytt:overlay", "overlay")
#@overlay/match by=lambda i, left, right: left["metadata"]["generation"] >= 10, expects="0+"
---
spec:
  replicas: 5
`, []string{"left [metadata generation] 0"}},
		"the resource's generation, through overlay.subset": {`#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.not_op(overlay.subset({"metadata": {"generation": 3}})), expects="0+"
---
spec:
  replicas: 5
`, []string{"left [metadata generation] 0"}},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := ctlres.NewResourceFromBytes([]byte(deployment))
			if err != nil {
				t.Fatal(err)
			}
			ex, err := ctlres.NewResourceFromBytes([]byte(live))
			if err != nil {
				t.Fatal(err)
			}
			values, err := yaml.Marshal(map[string]any{"new": res.DeepCopyRaw(), "existing": ex.DeepCopyRaw(), "_current": res.DeepCopyRaw()})
			if err != nil {
				t.Fatal(err)
			}
			resYAML, err := res.AsYAMLBytes()
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Eval(c.overlay, resYAML, values)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range tr.Reads {
				if s := fmt.Sprintf("%s %v %d", r.Source, r.Path, r.How); !slices.Contains(got, s) {
					got = append(got, s)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("reads %q, want %q", got, c.want)
			}
			kapps := res.DeepCopy()
			mod := yttresmod.OverlayContractV1Mod{OverlayYAML: c.overlay}
			if err := mod.ApplyFromMultiple(kapps, map[ctlres.FieldCopyModSource]ctlres.Resource{"new": res, "existing": ex, "_current": res}); err != nil {
				t.Fatal(err)
			}
			want, _ := yaml.Marshal(kapps.UnstructuredObject())
			out, _ := yaml.Marshal(tr.Out)
			if string(out) != string(want) {
				t.Errorf("returns\n%s\nkapp's evaluation returns\n%s", out, want)
			}
		})
	}
}
