package classify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	daemonsetregistry "k8s.io/kubernetes/pkg/registry/apps/daemonset"
	deploymentregistry "k8s.io/kubernetes/pkg/registry/apps/deployment"
	replicasetregistry "k8s.io/kubernetes/pkg/registry/apps/replicaset"
	statefulsetregistry "k8s.io/kubernetes/pkg/registry/apps/statefulset"
	cronjobregistry "k8s.io/kubernetes/pkg/registry/batch/cronjob"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	leaseregistry "k8s.io/kubernetes/pkg/registry/coordination/lease"
	namespaceregistry "k8s.io/kubernetes/pkg/registry/core/namespace"
	persistentvolumeclaimregistry "k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
	podtemplateregistry "k8s.io/kubernetes/pkg/registry/core/podtemplate"
	replicationcontrollerregistry "k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	serviceaccountregistry "k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	csidriverregistry "k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"sigs.k8s.io/yaml"
)

// The real strategies, linked by this test only (their packages link the API server's storage).
var upstreamStrategies = map[schema.GroupKind]interface {
	PrepareForCreate(context.Context, runtime.Object)
}{
	{Kind: "Pod"}:                                 podregistry.Strategy,
	{Kind: "PodTemplate"}:                         podtemplateregistry.Strategy,
	{Kind: "ReplicationController"}:               replicationcontrollerregistry.Strategy,
	{Kind: "Namespace"}:                           namespaceregistry.Strategy,
	{Kind: "PersistentVolumeClaim"}:               persistentvolumeclaimregistry.Strategy,
	{Kind: "ServiceAccount"}:                      serviceaccountregistry.Strategy,
	{Group: "apps", Kind: "Deployment"}:           deploymentregistry.Strategy,
	{Group: "apps", Kind: "ReplicaSet"}:           replicasetregistry.Strategy,
	{Group: "apps", Kind: "StatefulSet"}:          statefulsetregistry.Strategy,
	{Group: "apps", Kind: "DaemonSet"}:            daemonsetregistry.Strategy,
	{Group: "batch", Kind: "Job"}:                 jobregistry.Strategy,
	{Group: "batch", Kind: "CronJob"}:             cronjobregistry.Strategy,
	{Group: "coordination.k8s.io", Kind: "Lease"}: leaseregistry.Strategy,
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:  csidriverregistry.Strategy,
}

// strategyCases reach every branch of the strategies classify runs without linking them: pod
// affinity and topology spread label keys (present, absent from the labels, nil selectors),
// AppArmor annotations (valid, invalid, the pod's own profile, a field already set, Windows, an
// init container), Pod-level resources, a Job's selector (generated, manual, labels already
// set), a Namespace's finalizers, a ServiceAccount's secret references, a PVC's data sources.
const strategyCases = `
apiVersion: v1
kind: Pod
metadata: {name: aff, labels: {app: a, tier: web, zone: z}}
spec:
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {topologyKey: k, labelSelector: {matchLabels: {app: a}}, matchLabelKeys: [tier, missing], mismatchLabelKeys: [zone]}
      - {topologyKey: k, matchLabelKeys: [tier]}
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 1, podAffinityTerm: {topologyKey: k, labelSelector: {matchExpressions: [{key: app, operator: Exists}]}, matchLabelKeys: [tier]}}
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {topologyKey: k, labelSelector: {matchLabels: {app: a}}, mismatchLabelKeys: [tier]}
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 2, podAffinityTerm: {topologyKey: k, labelSelector: {}, matchLabelKeys: [zone]}}
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: a}}, matchLabelKeys: [tier, missing]}
  - {maxSkew: 1, topologyKey: host, whenUnsatisfiable: ScheduleAnyway, matchLabelKeys: [tier]}
  schedulingGates: [{name: wait}]
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata:
  name: apparmor
  annotations:
    container.apparmor.security.beta.kubernetes.io/a: runtime/default
    container.apparmor.security.beta.kubernetes.io/b: localhost/my-profile
    container.apparmor.security.beta.kubernetes.io/c: unconfined
    container.apparmor.security.beta.kubernetes.io/d: bogus
    container.apparmor.security.beta.kubernetes.io/e: runtime/default
    container.apparmor.security.beta.kubernetes.io/f: localhost/pod-profile
    container.apparmor.security.beta.kubernetes.io/init: runtime/default
spec:
  securityContext: {appArmorProfile: {type: Localhost, localhostProfile: pod-profile}}
  initContainers: [{name: init, image: busybox}]
  containers:
  - {name: a, image: busybox}
  - {name: b, image: busybox}
  - {name: c, image: busybox}
  - {name: d, image: busybox}
  - {name: e, image: busybox, securityContext: {appArmorProfile: {type: Unconfined}}}
  - {name: f, image: busybox}
---
apiVersion: v1
kind: Pod
metadata:
  name: windows
  annotations: {container.apparmor.security.beta.kubernetes.io/a: runtime/default}
spec:
  os: {name: windows}
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: limits}
spec:
  resources: {limits: {cpu: 500m, memory: 128Mi, hugepages-2Mi: 4Mi}}
  containers: [{name: a, image: busybox, resources: {limits: {hugepages-2Mi: 2Mi, memory: 64Mi}, requests: {memory: 64Mi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: requests}
spec:
  resources: {requests: {memory: 64Mi}}
  initContainers: [{name: i, image: busybox, resources: {limits: {cpu: 100m}}}]
  containers:
  - {name: a, image: busybox, resources: {limits: {cpu: 300m}}}
  - {name: b, image: busybox, resources: {limits: {cpu: 200m, memory: 32Mi}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: generated}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: a, image: busybox}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: labelled}
spec:
  managedBy: example.com/queue
  template:
    metadata: {labels: {job-name: other, batch.kubernetes.io/controller-uid: u}}
    spec: {restartPolicy: Never, containers: [{name: a, image: busybox}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: manual}
spec:
  manualSelector: true
  selector: {matchLabels: {app: m}}
  template:
    metadata: {labels: {app: m}}
    spec: {restartPolicy: Never, containers: [{name: a, image: busybox}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: bare}
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
spec: {finalizers: [example.com/cleanup]}
---
apiVersion: v1
kind: Namespace
metadata: {name: already}
spec: {finalizers: [kubernetes, example.com/cleanup]}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa}
secrets: [{name: a, namespace: ns, uid: u, kind: Secret, fieldPath: data}, {name: b}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ref}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, dataSourceRef: {kind: PersistentVolumeClaim, name: a}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: source}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, dataSource: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: s}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: populator}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, dataSource: {apiGroup: example.com, kind: Populator, name: p}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  selector: {app: rc}
  template:
    metadata: {labels: {app: rc}}
    spec: {containers: [{name: a, image: busybox}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec: {containers: [{name: a, image: busybox}]}
`

// The strategies classify runs without linking their packages do what the real ones do, on the
// cases above and every desired object of the fixtures, status and generation aside; and each
// names its real package.
func TestCreateStrategiesAsUpstream(t *testing.T) {
	for gk, s := range createStrategies {
		up, ok := upstreamStrategies[gk]
		if !ok {
			t.Errorf("%s: no upstream strategy to check it against", gk)
			continue
		}
		if pkg := reflect.TypeOf(up).PkgPath(); pkg != "k8s.io/kubernetes/"+s.pkg {
			t.Errorf("%s: evidence names %s, the strategy is in %s", gk, s.pkg, pkg)
		}
	}
	var docs []string
	for _, d := range strings.Split(strategyCases, "\n---\n") {
		docs = append(docs, d)
	}
	files, _ := filepath.Glob("../../fixtures/*/desired.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, strings.Split(string(b), "\n---\n")...)
	}
	changed := map[schema.GroupKind]int{}
	checked := 0
	for _, doc := range docs {
		var u unstructured.Unstructured
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil || u.Object == nil {
			continue
		}
		gvk := u.GroupVersionKind()
		s, ok := createStrategies[gvk.GroupKind()]
		if !ok {
			continue
		}
		obj, err := legacyscheme.Scheme.New(gvk)
		if err != nil {
			t.Fatalf("%s %s: %v", gvk, u.GetName(), err)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
			t.Fatalf("%s %s: %v", gvk, u.GetName(), err)
		}
		legacyscheme.Scheme.Default(obj)
		internal, err := legacyscheme.Scheme.ConvertToVersion(obj, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
		if err != nil {
			t.Fatalf("%s %s: %v", gvk, u.GetName(), err)
		}
		want, got := internal.DeepCopyObject(), internal.DeepCopyObject()
		upstreamStrategies[gvk.GroupKind()].PrepareForCreate(context.Background(), want)
		if err := s.run(got); err != nil {
			t.Fatalf("%s %s: %v", gvk, u.GetName(), err)
		}
		withoutStatus(t, want)
		withoutStatus(t, got)
		checked++
		if !apiequality.Semantic.DeepEqual(want, internal) {
			changed[gvk.GroupKind()]++
		}
		if !apiequality.Semantic.DeepEqual(got, want) {
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(got)
			t.Errorf("%s %s:\nupstream %s\nclassify %s", gvk, u.GetName(), w, g)
		}
	}
	// Not vacuous: each strategy copied in part changed some object.
	for _, gk := range []schema.GroupKind{{Kind: "Pod"}, {Kind: "Namespace"}, {Kind: "ServiceAccount"}, {Kind: "PersistentVolumeClaim"}, {Group: "batch", Kind: "Job"}} {
		if changed[gk] == 0 {
			t.Errorf("%s: no case changed by PrepareForCreate", gk)
		}
	}
	t.Logf("%d objects, changed by their strategy: %v", checked, changed)
}

// withoutStatus clears what every strategy resets and classify leaves: status and generation.
func withoutStatus(t *testing.T, obj runtime.Object) {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	m.SetGeneration(0)
	if f := reflect.ValueOf(obj).Elem().FieldByName("Status"); f.IsValid() {
		f.Set(reflect.Zero(f.Type()))
	}
}
