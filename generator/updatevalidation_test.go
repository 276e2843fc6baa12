package generator_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/apis/networking"
	netvalidation "k8s.io/kubernetes/pkg/apis/networking/validation"
	"k8s.io/kubernetes/pkg/apis/resource"
	resourcevalidation "k8s.io/kubernetes/pkg/apis/resource/validation"
	"k8s.io/kubernetes/pkg/apis/storage"
	storagevalidation "k8s.io/kubernetes/pkg/apis/storage/validation"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// kappApplied is the live object kapp made of manifest (YAML): its labels and kapp.k14s.io/original,
// the server's metadata, and what server sets (its defaults).
func kappApplied(t *testing.T, manifest string, server func(map[string]any)) string {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		t.Fatal(err)
	}
	meta := obj["metadata"].(map[string]any)
	group, _, grouped := strings.Cut(obj["apiVersion"].(string), "/")
	if !grouped {
		group = ""
	}
	ns, _ := meta["namespace"].(string)
	// kapp v0.66.0 resources/association_label.go: v1.<md5 of namespace/group/kind/name>
	key := md5.Sum([]byte(ns + "/" + group + "/" + obj["kind"].(string) + "/" + meta["name"].(string)))
	meta["labels"] = map[string]any{"kapp.k14s.io/app": "1700000000000000000", "kapp.k14s.io/association": "v1." + hex.EncodeToString(key[:])}
	original, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	meta["uid"], meta["resourceVersion"], meta["creationTimestamp"] = "11111111-2222-3333-4444-555555555555", "1234", "2026-01-01T00:00:00Z"
	meta["annotations"] = map[string]any{"kapp.k14s.io/original": string(original)}
	server(obj)
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A change made in Git to a field the API server refuses to change on update, of a kind
// rulesets/immutable.yaml did not list: check said "pending change from Git (kapp applies it on
// deploy)", exit 0, while the server's update validation refuses kapp's update and the deploy
// fails (probe14 P14-2: a ResourceClaimTemplate's deviceClassName; ResourceSlice's driver and a
// ServiceCIDR's first CIDR alike). Allowed changes of the same objects stay pending changes. The
// oracle: Kubernetes' validation called directly on the update built by hand in its internal types.
func TestUpdateTheServerRefusesFailsTheGate(t *testing.T) {
	const rct = `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: dra}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: %s}
`
	const slice = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu}
spec:
  driver: %s
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices: [%s]
`
	const cidr = `apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: extra}
spec:
  cidrs: [%s]
`
	const quota = `apiVersion: v1
kind: ResourceQuota
metadata: {name: pods, namespace: dra}
spec:
  hard: {pods: "10"}
  scopes: %s
`
	const pv = `apiVersion: v1
kind: PersistentVolume
metadata: {name: local-1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/disk}
  %s
`
	const vac = `apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: fast}
driverName: pd.csi.storage.gke.io
parameters: {iops: %s}
`
	// affinity is a nodeAffinity on node (the hostname label), or on KEY=VALUE
	affinity := func(node string) string {
		key, value := pvAffinityOn(node)
		return "{required: {nodeSelectorTerms: [{matchExpressions: [{key: " + key + ", operator: In, values: [" + value + "]}]}]}}"
	}
	for _, tc := range []struct {
		name, live, desired string
		names               string // in the evidence of the refusal
		server              func(map[string]any)
		oracle              func() field.ErrorList
		fails               bool
	}{
		{
			name: "ResourceClaimTemplate deviceClassName (P14-2)", fails: true, names: "ValidateResourceClaimTemplateUpdate): spec: Invalid value: field is immutable",
			live: fill(rct, "gpu.example.com"), desired: fill(rct, "gpu-large.example.com"),
			server: func(o map[string]any) {
				exactly := o["spec"].(map[string]any)["spec"].(map[string]any)["devices"].(map[string]any)["requests"].([]any)[0].(map[string]any)["exactly"].(map[string]any)
				exactly["allocationMode"], exactly["count"] = "ExactCount", int64(1)
			},
			oracle: func() field.ErrorList {
				tmpl := func(class string) *resource.ResourceClaimTemplate {
					return &resource.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "dra", ResourceVersion: "1"}, Spec: resource.ResourceClaimTemplateSpec{Spec: resource.ResourceClaimSpec{Devices: resource.DeviceClaim{Requests: []resource.DeviceRequest{{Name: "gpu", Exactly: &resource.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resource.DeviceAllocationModeExactCount, Count: 1}}}}}}}
				}
				return resourcevalidation.ValidateResourceClaimTemplateUpdate(tmpl("gpu-large.example.com"), tmpl("gpu.example.com"))
			},
		},
		{
			name: "ResourceSlice driver", fails: true,
			live: fill(slice, "gpu.example.com", "{name: gpu-0}"), desired: fill(slice, "gpu2.example.com", "{name: gpu-0}"),
			oracle: func() field.ErrorList { return sliceUpdate("gpu2.example.com", "gpu-0") },
		},
		{
			name: "ResourceSlice device added",
			live: fill(slice, "gpu.example.com", "{name: gpu-0}"), desired: fill(slice, "gpu.example.com", "{name: gpu-0}, {name: gpu-1}"),
			oracle: func() field.ErrorList { return sliceUpdate("gpu.example.com", "gpu-0", "gpu-1") },
		},
		{
			name: "ServiceCIDR first CIDR changed", fails: true,
			live: fill(cidr, "10.96.0.0/16"), desired: fill(cidr, "10.97.0.0/16"),
			oracle: func() field.ErrorList { return cidrUpdate("10.97.0.0/16") },
		},
		{
			name: "ServiceCIDR made dual-stack",
			live: fill(cidr, "10.96.0.0/16"), desired: fill(cidr, "10.96.0.0/16, 'fd00:10:96::/112'"),
			oracle: func() field.ErrorList { return cidrUpdate("10.96.0.0/16", "fd00:10:96::/112") },
		},
		{
			name: "ResourceQuota scopes", fails: true,
			live: fill(quota, "[NotBestEffort]"), desired: fill(quota, "[BestEffort]"),
			oracle: func() field.ErrorList {
				return quotaUpdate([]api.ResourceQuotaScope{api.ResourceQuotaScopeNotBestEffort}, api.ResourceQuotaScopeBestEffort)
			},
		},
		{
			// the server compares the scopes as a set (fix28f: the cautious ruleset entry failed the gate)
			name: "ResourceQuota scopes reordered",
			live: fill(quota, "[NotBestEffort, NotTerminating]"), desired: fill(quota, "[NotTerminating, NotBestEffort]"),
			oracle: func() field.ErrorList {
				return quotaUpdate([]api.ResourceQuotaScope{api.ResourceQuotaScopeNotBestEffort, api.ResourceQuotaScopeNotTerminating}, api.ResourceQuotaScopeNotTerminating, api.ResourceQuotaScopeNotBestEffort)
			},
		},
		{
			name: "PersistentVolume nodeAffinity changed", fails: true,
			live: fill(pv, "nodeAffinity: "+affinity("node-1")), desired: fill(pv, "nodeAffinity: "+affinity("node-2")),
			oracle: func() field.ErrorList { return pvUpdate("node-1", "node-2") },
		},
		{
			// the server lets a beta topology label become its GA name (fix28f: the cautious
			// ruleset entry failed the gate); another zone stays refused
			name: "PersistentVolume nodeAffinity from the beta zone label to the GA one",
			live: fill(pv, "nodeAffinity: "+affinity("failure-domain.beta.kubernetes.io/zone=zone-a")), desired: fill(pv, "nodeAffinity: "+affinity("topology.kubernetes.io/zone=zone-a")),
			oracle: func() field.ErrorList {
				return pvUpdate("failure-domain.beta.kubernetes.io/zone=zone-a", "topology.kubernetes.io/zone=zone-a")
			},
		},
		{
			name: "PersistentVolume nodeAffinity from the beta zone label to the GA one on another zone", fails: true,
			live: fill(pv, "nodeAffinity: "+affinity("failure-domain.beta.kubernetes.io/zone=zone-a")), desired: fill(pv, "nodeAffinity: "+affinity("topology.kubernetes.io/zone=zone-b")),
			oracle: func() field.ErrorList {
				return pvUpdate("failure-domain.beta.kubernetes.io/zone=zone-a", "topology.kubernetes.io/zone=zone-b")
			},
		},
		{
			name: "PersistentVolume nodeAffinity set where it had none",
			live: fill(pv, "volumeMode: Filesystem"), desired: fill(pv, "nodeAffinity: "+affinity("node-2")),
			oracle: func() field.ErrorList { return pvUpdate("", "node-2") },
		},
		{
			name: "VolumeAttributesClass parameters", fails: true,
			live: fill(vac, "'3000'"), desired: fill(vac, "'6000'"),
			oracle: func() field.ErrorList { return vacUpdate("6000") },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if errs := tc.oracle(); (len(errs) > 0) != tc.fails {
				t.Fatalf("oracle: the server refuses the update: %v, want %v (%v)", len(errs) > 0, tc.fails, errs)
			}
			server := tc.server
			if server == nil {
				server = func(map[string]any) {}
			}
			in := generator.Inputs{Desired: []string{writeFile(t, "desired.yaml", tc.desired)}, Live: []string{writeFile(t, "live.yaml", kappApplied(t, tc.live, server))}, Namespace: "dra"}
			ch, err := generator.Check(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range ch.Findings(verdict.Gate{}) {
				if f.Kind == verdict.KindResidual { // no rules: the server's defaults, not judged here
					continue
				}
				found = true
				refused := f.Kind == verdict.KindImmutable && f.Fails && strings.Contains(f.Evidence, "the API server refuses kapp's update") && strings.Contains(f.Evidence, tc.names)
				if tc.fails && !refused || !tc.fails && (f.Fails || f.Kind != verdict.KindPending) {
					t.Errorf("check: want refused %v, got %s %s (fails %v): %s", tc.fails, f.Kind, f.Path, f.Fails, f.Evidence)
				}
			}
			if !found {
				t.Error("check: no finding")
			}
		})
	}
}

// fill puts values, in order, where format holds %s.
func fill(format string, values ...string) string {
	for _, v := range values {
		format = strings.Replace(format, "%s", v, 1)
	}
	return format
}

// sliceUpdate is the server's validation of the update of the test's ResourceSlice (driver
// gpu.example.com, device gpu-0) to one of driver and devices.
func sliceUpdate(driver string, devices ...string) field.ErrorList {
	s := func(driver string, devices ...string) *resource.ResourceSlice {
		out := &resource.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "node-1-gpu", ResourceVersion: "1"}, Spec: resource.ResourceSliceSpec{Driver: driver, NodeName: ref("node-1"), Pool: resource.ResourcePool{Name: "node-1", Generation: 1, ResourceSliceCount: 1}}}
		for _, d := range devices {
			out.Spec.Devices = append(out.Spec.Devices, resource.Device{Name: d})
		}
		return out
	}
	return resourcevalidation.ValidateResourceSliceUpdate(s(driver, devices...), s("gpu.example.com", "gpu-0"))
}

// cidrUpdate is the server's validation of the update of the test's ServiceCIDR (10.96.0.0/16) to
// one of cidrs.
func cidrUpdate(cidrs ...string) field.ErrorList {
	c := func(cidrs ...string) *networking.ServiceCIDR {
		return &networking.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "extra", ResourceVersion: "1"}, Spec: networking.ServiceCIDRSpec{CIDRs: cidrs}}
	}
	return netvalidation.ValidateServiceCIDRUpdate(c(cidrs...), c("10.96.0.0/16"))
}

// quotaUpdate is the server's validation of the update of the test's ResourceQuota of scopes
// live to one of scopes.
func quotaUpdate(live []api.ResourceQuotaScope, scopes ...api.ResourceQuotaScope) field.ErrorList {
	q := func(scopes ...api.ResourceQuotaScope) *api.ResourceQuota {
		return &api.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods", Namespace: "dra", ResourceVersion: "1"}, Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{api.ResourcePods: apiresource.MustParse("10")}, Scopes: scopes}}
	}
	return corevalidation.ValidateResourceQuotaUpdate(q(scopes...), q(live...))
}

// pvAffinityOn is the label and value of a nodeAffinity on node: KEY=VALUE, or a node name (the
// hostname label).
func pvAffinityOn(node string) (key, value string) {
	if key, value, ok := strings.Cut(node, "="); ok {
		return key, value
	}
	return "kubernetes.io/hostname", node
}

// pvUpdate is the server's validation of the update of the test's local PersistentVolume, its
// nodeAffinity on node from (none where ""), to one on node to (pvAffinityOn).
func pvUpdate(from, to string) field.ErrorList {
	v := func(node string) *api.PersistentVolume {
		out := &api.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "local-1", ResourceVersion: "1"}, Spec: api.PersistentVolumeSpec{
			Capacity: api.ResourceList{api.ResourceStorage: apiresource.MustParse("1Gi")}, AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: "local",
			PersistentVolumeReclaimPolicy: api.PersistentVolumeReclaimRetain, VolumeMode: ref(api.PersistentVolumeFilesystem),
			PersistentVolumeSource: api.PersistentVolumeSource{Local: &api.LocalVolumeSource{Path: "/mnt/disk"}},
		}}
		if node != "" {
			key, value := pvAffinityOn(node)
			out.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{Key: key, Operator: api.NodeSelectorOpIn, Values: []string{value}}}}}}}
		}
		return out
	}
	nw, old := v(to), v(from)
	return corevalidation.ValidatePersistentVolumeUpdate(nw, old, corevalidation.ValidationOptionsForPersistentVolume(nw, old))
}

// vacUpdate is the server's validation of the update of the test's VolumeAttributesClass (iops
// 3000) to one of iops.
func vacUpdate(iops string) field.ErrorList {
	c := func(iops string) *storage.VolumeAttributesClass {
		return &storage.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: "fast", ResourceVersion: "1"}, DriverName: "pd.csi.storage.gke.io", Parameters: map[string]string{"iops": iops}}
	}
	return storagevalidation.ValidateVolumeAttributesClassUpdate(c(iops), c("3000"))
}

func ref[T any](v T) *T { return &v }
