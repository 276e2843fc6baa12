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

// strategyCases reach every branch of the strategies classify runs without linking them.
const strategyCases = "testdata/create-strategies.yaml"

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
	files, _ := filepath.Glob("../../fixtures/*/desired.yaml")
	for _, f := range append([]string{strategyCases}, files...) {
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
